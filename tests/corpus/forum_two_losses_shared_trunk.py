# runnable
# Multi-task net: one backbone, two heads. I call backward on each task loss so I
# can log their gradients separately; the second call crashes.
import torch
import torch.nn as nn

torch.manual_seed(23)
backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
cls_head = nn.Linear(32, 3)
reg_head = nn.Linear(32, 1)
opt = torch.optim.SGD(
    [*backbone.parameters(), *cls_head.parameters(), *reg_head.parameters()], lr=0.01
)

for step in range(3):
    x = torch.randn(16, 10)
    feats = backbone(x)
    cls_loss = nn.functional.cross_entropy(cls_head(feats), torch.randint(0, 3, (16,)))
    reg_loss = nn.functional.l1_loss(reg_head(feats), torch.randn(16, 1))
    opt.zero_grad()
    cls_loss.backward()
    reg_loss.backward()  # expect: AG002
    opt.step()

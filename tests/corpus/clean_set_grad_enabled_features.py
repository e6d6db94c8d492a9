# runnable
# Features from a frozen backbone, computed once under `torch.set_grad_enabled(False)`:
# they carry no graph, so reusing them in every step of the head's training is fine.
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Linear(6, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
inputs, targets = torch.randn(32, 6), torch.randn(32, 1)

with torch.set_grad_enabled(False):
    features = backbone(inputs)

for epoch in range(3):
    loss = ((head(features) - targets) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

"""Multi-task detector head: one shared backbone, a class loss and a box loss.

Fixed: the first backward() keeps the graph alive with `retain_graph=True`, so the
second one can still run through the shared backbone; the second frees it. (Adding
the losses and calling backward() once is the other fix: clean_multitask_summed.py.)
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

CLASSES = 4
backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
class_head = nn.Linear(64, CLASSES)
box_head = nn.Linear(64, 4)
params = [*backbone.parameters(), *class_head.parameters(), *box_head.parameters()]
optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.9)

batches = [
    (torch.randn(16, 32), torch.randint(0, CLASSES, (16,)), torch.rand(16, 4)) for _ in range(3)
]

for images, labels, boxes in batches:
    features = backbone(images)
    class_loss = F.cross_entropy(class_head(features), labels)
    box_loss = F.smooth_l1_loss(box_head(features), boxes)
    optimizer.zero_grad()
    class_loss.backward(retain_graph=True)
    box_loss.backward()
    optimizer.step()

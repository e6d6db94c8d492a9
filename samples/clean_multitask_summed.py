"""Multi-task detector head: one shared backbone, a class loss and a box loss.

The losses are weighted, added, and back-propagated with a single backward(), so
the shared backbone's graph is walked (and freed) exactly once per batch.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

CLASSES, BOX_WEIGHT = 4, 2.0
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
    loss = class_loss + BOX_WEIGHT * box_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

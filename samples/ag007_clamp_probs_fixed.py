"""Binary classifier with a hand-written, numerically safe cross-entropy.

Fixed: the out-of-place `clamp` makes a new tensor and leaves the one sigmoid()
saved untouched.
"""

import torch
from torch import nn

torch.manual_seed(0)

EPS = 1e-6
x = torch.randn(64, 5)
y = (x.sum(dim=1, keepdim=True) > 0).float()
model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(3):
    optimizer.zero_grad()
    probs = torch.sigmoid(model(x))
    probs = probs.clamp(EPS, 1 - EPS)
    loss = -(y * probs.log() + (1 - y) * (1 - probs).log()).mean()
    loss.backward()
    optimizer.step()

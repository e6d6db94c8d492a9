"""Gradient accumulation: four micro-batches per optimizer step.

Every micro-batch back-propagates its own scaled loss right away; only the
gradients accumulate (in `.grad`), never the graphs.
"""

import torch
from torch import nn

torch.manual_seed(0)

ACCUMULATION_STEPS = 4
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.MSELoss()

micro_batches = [(torch.randn(4, 16), torch.randn(4, 1)) for _ in range(12)]

optimizer.zero_grad()
for i, (x, y) in enumerate(micro_batches):
    loss = criterion(model(x), y) / ACCUMULATION_STEPS
    loss.backward()
    if (i + 1) % ACCUMULATION_STEPS == 0:
        optimizer.step()
        optimizer.zero_grad()

"""Classifier with an L1 penalty summed over its parameters by hand.

Fixed: the penalty accumulator starts from zero inside the loop, so each step
sums its own penalty over the current parameters.
"""

import torch
from torch import nn

torch.manual_seed(0)

L1 = 1e-4
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

batches = [(torch.randn(16, 20), torch.randint(0, 4, (16,))) for _ in range(4)]

for x, y in batches:
    penalty = torch.tensor(0.0)
    for param in model.parameters():
        penalty += param.abs().sum()
    loss = criterion(model(x), y) + L1 * penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

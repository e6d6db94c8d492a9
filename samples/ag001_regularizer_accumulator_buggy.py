"""Classifier with an L1 penalty summed over its parameters by hand.

The penalty accumulator is created once, before the training loop, and `+=`
keeps adding to it: from the second step on it still holds the first step's
penalty graph, which the first backward() freed.
"""

import torch
from torch import nn

torch.manual_seed(0)

L1 = 1e-4
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

batches = [(torch.randn(16, 20), torch.randint(0, 4, (16,))) for _ in range(4)]

penalty = torch.tensor(0.0)
for x, y in batches:
    for param in model.parameters():
        penalty += param.abs().sum()
    loss = criterion(model(x), y) + L1 * penalty
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

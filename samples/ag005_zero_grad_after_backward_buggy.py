"""A small classifier trained with Adam.

Bug: `optimizer.zero_grad()` sits between backward() and step(). The gradients are
set to None right before the step, Adam skips every parameter, and the model never
changes: the loss stays where it started, with no error.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.randn(128, 4)
labels = (x[:, 0] + x[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()

for epoch in range(6):
    loss = criterion(model(x), labels)
    loss.backward()
    optimizer.zero_grad()  # expect: AG005
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")

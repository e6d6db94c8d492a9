"""Epoch loss bookkeeping.

Fixed: the running total takes `loss.item()`, a plain number.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.randn(96, 4)
y = torch.randn(96, 1)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for epoch in range(3):
    running = 0.0
    for batch in range(3):
        xb, yb = x[batch * 32 : (batch + 1) * 32], y[batch * 32 : (batch + 1) * 32]
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: mean loss {running / 3:.4f}")

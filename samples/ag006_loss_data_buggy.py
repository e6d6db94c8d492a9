"""Epoch loss bookkeeping with `loss.data`.

Bug (style): `loss.data` is the loss with autograd's checks switched off. Keeping a
running total of it works, but `.detach()` (or `.item()` for a number) says the same
thing without hiding in-place changes from autograd.
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
        running += loss.data  # expect: AG006
    print(f"epoch {epoch}: mean loss {float(running) / 3:.4f}")

"""Curve fitting with L-BFGS, which re-evaluates the loss through a closure.

`optimizer.step(closure)` may call the closure several times per step; each call
runs a fresh forward pass and back-propagates it once, so no graph is reused.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.linspace(0, 1, 64).unsqueeze(1)
y = 3.0 * x**2 - x + 0.5 + 0.01 * torch.randn_like(x)

model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10)
loss_fn = nn.MSELoss()


def closure():
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


for step in range(4):
    loss = optimizer.step(closure)
    print(f"step {step}: {loss.item():.5f}")

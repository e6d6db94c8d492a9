"""Hand-written SGD.

Fixed: the update runs under `torch.no_grad()` on the parameters themselves, so
autograd still tracks their versions.
"""

import torch
from torch import nn

torch.manual_seed(0)

LR = 0.05
x = torch.randn(64, 3)
y = x @ torch.tensor([[1.0], [2.0], [-1.0]])
model = nn.Linear(3, 1)

for step in range(5):
    model.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(p.grad, alpha=-LR)
    print(f"step {step}: loss {loss.item():.4f}")

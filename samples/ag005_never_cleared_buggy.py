"""Linear regression with SGD on a fixed batch.

Bug: nothing clears the gradients, so each backward() adds to the previous ones and
every step uses the sum of all gradients so far. Nothing raises; the updates just
grow with every iteration.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.randn(64, 3)
y = x @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.1 * torch.randn(64, 1)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for step in range(8):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()  # expect: AG005
    print(f"step {step}: loss {loss.item():.4f}")

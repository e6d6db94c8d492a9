"""Training loop that logs the gradient norm before it back-propagates.

Fixed: the gradients are computed once, by backward(), and the norm is read from
the parameters' `.grad` afterwards.
"""

import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(3)]

for step, (x, y) in enumerate(batches):
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    grad_norm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grad norm {grad_norm.item():.4f}")

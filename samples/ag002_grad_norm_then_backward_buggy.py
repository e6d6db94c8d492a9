"""Training loop that logs the gradient norm before it back-propagates.

The norm is computed with `torch.autograd.grad`, which frees the graph just as
backward() does unless told to keep it; the `loss.backward()` that follows for the
optimizer then finds the graph gone.
"""

import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(3)]

for step, (x, y) in enumerate(batches):
    loss = nn.functional.mse_loss(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    grad_norm = torch.sqrt(sum(g.pow(2).sum() for g in grads))
    optimizer.zero_grad()
    loss.backward()  # expect: AG002
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grad norm {grad_norm.item():.4f}")

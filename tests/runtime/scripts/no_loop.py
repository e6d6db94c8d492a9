"""One forward and one backward, no training loop."""

import torch

weights = torch.randn(3, requires_grad=True)
(weights * 2).sum().backward()
print("gradient", weights.grad.tolist())

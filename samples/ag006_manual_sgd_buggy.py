"""Hand-written SGD, the way old tutorials spell it.

Bug: the update writes through `p.data`. It works here, but autograd does not see the
write (the version counter is not bumped): had a graph that saved `p` still been
waiting for its backward, that backward would silently use the new weights.
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
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-LR)  # expect: AG006
    print(f"step {step}: loss {loss.item():.4f}")

"""A linear layer with a learned, positive per-output scale.

`__init__` derives `self.scale = self.log_scale.exp()` once, so every forward pass
multiplies by that same tensor and its one small graph. The first backward() frees
it and the second batch's backward() fails (the optimizer's updates to `log_scale`
would never reach `scale` either).
"""

import torch
from torch import nn

torch.manual_seed(0)


class ScaledLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)
        self.log_scale = nn.Parameter(torch.zeros(d_out))
        self.scale = self.log_scale.exp()

    def forward(self, x):
        return self.linear(x) * self.scale


model = nn.Sequential(ScaledLinear(6, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
batches = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(4)]

for x, y in batches:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

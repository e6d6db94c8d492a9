"""A linear layer with a learned, positive per-output scale.

Fixed: `forward` takes `exp()` of the current `log_scale` on every call, so each
batch builds (and frees) its own small graph for the scale.
"""

import torch
from torch import nn

torch.manual_seed(0)


class ScaledLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)
        self.log_scale = nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        return self.linear(x) * self.log_scale.exp()


model = nn.Sequential(ScaledLinear(6, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
batches = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(4)]

for x, y in batches:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

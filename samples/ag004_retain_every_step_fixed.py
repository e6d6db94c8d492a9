"""The same loop without `retain_graph`: each step's graph is freed by its backward."""

import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(10):
    x = torch.randn(32, 6)
    loss = (model(x) - x.mean(dim=1, keepdim=True)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

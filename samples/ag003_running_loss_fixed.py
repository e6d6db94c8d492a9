"""The same loop, logging a plain number: `loss.item()` carries no graph."""

import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()

running_loss = 0.0
for step in range(20):
    x = torch.randn(16, 8)
    y = x.sum(dim=1, keepdim=True)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running_loss += loss.item()

print(f"mean loss {running_loss / 20:.4f}")

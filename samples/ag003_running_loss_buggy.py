"""A regression loop that logs its average loss.

`running_loss += loss` adds the loss *tensor*, so `running_loss` keeps a reference to
every step's graph: the epoch's memory grows with each batch although nothing ever
back-propagates through the total.
"""

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
    running_loss += loss  # expect: AG003

print(f"mean loss {running_loss.item() / 20:.4f}")

"""`retain_graph=True` copied from a forum answer into a loop that never needed it.

Every step keeps its graph (and the activations it saved) alive after its backward,
although nothing back-propagates through it again.
"""

import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(10):
    x = torch.randn(32, 6)
    loss = (model(x) - x.mean(dim=1, keepdim=True)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # expect: AG004
    optimizer.step()

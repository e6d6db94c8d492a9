"""Two ensemble members trained side by side on the same batches.

Each member runs its own forward pass and its loss is back-propagated on its own:
the two backward() calls in a step walk two separate graphs, so neither frees
anything the other needs.
"""

import torch
from torch import nn

torch.manual_seed(0)


def make_member():
    return nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 3))


member_a, member_b = make_member(), make_member()
optimizer_a = torch.optim.Adam(member_a.parameters(), lr=1e-3)
optimizer_b = torch.optim.Adam(member_b.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

batches = [(torch.randn(16, 10), torch.randint(0, 3, (16,))) for _ in range(4)]

for x, y in batches:
    loss_a = criterion(member_a(x), y)
    loss_b = criterion(member_b(x), y)
    optimizer_a.zero_grad()
    optimizer_b.zero_grad()
    loss_a.backward()
    loss_b.backward()
    optimizer_a.step()
    optimizer_b.step()

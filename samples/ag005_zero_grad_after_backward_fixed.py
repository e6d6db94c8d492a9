"""A small classifier trained with Adam.

Fixed: the gradients are cleared before the backward, so the step sees them.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.randn(128, 4)
labels = (x[:, 0] + x[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()

for epoch in range(6):
    optimizer.zero_grad()
    loss = criterion(model(x), labels)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")

"""Full-batch training of a small MLP on a toy 1-D regression problem.

Fixed: the forward pass runs inside the loop, so every epoch builds a fresh graph
from the freshly updated weights and back-propagates through that one.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.linspace(-2, 2, 128).unsqueeze(1)
y = torch.sin(3 * x) + 0.05 * torch.randn_like(x)

model = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()

for epoch in range(20):
    prediction = model(x)
    loss = loss_fn(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch}: {loss.item():.4f}")

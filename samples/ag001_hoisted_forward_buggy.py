"""Full-batch training of a small MLP on a toy 1-D regression problem.

The forward pass was moved above the loop "because the data never changes", so
every epoch computes its loss from the same prediction graph. The first backward()
frees that graph and the second epoch's backward() fails on it.
"""

import torch
from torch import nn

torch.manual_seed(0)

x = torch.linspace(-2, 2, 128).unsqueeze(1)
y = torch.sin(3 * x) + 0.05 * torch.randn_like(x)

model = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()

prediction = model(x)
for epoch in range(20):
    loss = loss_fn(prediction, y)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch}: {loss.item():.4f}")

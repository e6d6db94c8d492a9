"""Two losses over one forward pass, each calling backward()."""
# ruff: noqa: B007

import os

import torch

device = os.environ.get("FIXTURE_DEVICE", "cpu")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):  # loop
    features = torch.sigmoid(model(torch.randn(5, 6, device=device)))  # built
    loss_a = features[:, 0].pow(2).mean()
    loss_b = features[:, 1].abs().mean()
    optimizer.zero_grad()
    loss_a.backward()
    loss_b.backward()  # expect: AG002
    optimizer.step()

"""Features computed once before the loop, then trained on in every iteration."""
# ruff: noqa: B007

import os

import torch

device = os.environ.get("FIXTURE_DEVICE", "cpu")
torch.manual_seed(0)
encoder = torch.nn.Linear(6, 8).to(device)
head = torch.nn.Linear(8, 1).to(device)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
inputs = torch.randn(16, 6, device=device)
targets = torch.randn(16, 1, device=device)
features = torch.relu(encoder(inputs))  # built
for epoch in range(5):  # loop
    loss = torch.nn.functional.mse_loss(head(features), targets)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

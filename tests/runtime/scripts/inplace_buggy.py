"""A saved activation modified in place before backward (what AG007 is about)."""
# ruff: noqa: B007

import os

import torch

device = os.environ.get("FIXTURE_DEVICE", "cpu")
weights = torch.randn(3, 3, requires_grad=True, device=device)
for step in range(3):  # loop
    activation = torch.sigmoid(torch.randn(2, 3, device=device) @ weights)
    scores = activation * activation  # built
    activation.mul_(0.5)
    scores.sum().backward()  # expect: AG007

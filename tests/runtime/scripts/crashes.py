"""Fails for a reason that has nothing to do with autograd."""

import torch

weights = torch.randn(3, requires_grad=True)
settings = {"lr": 0.1}
for _step in range(3):
    rate = settings["learning_rate"]  # crash
    (weights * rate).sum().backward()

"""Catches everything around backward, even BaseException, and keeps training."""

import torch

hidden = torch.zeros(3)
weights = torch.randn(3, requires_grad=True)
for step in range(6):  # loop
    hidden = torch.tanh(hidden + weights)  # built
    try:
        hidden.sum().backward()  # expect: AG001
    except BaseException:
        print("swallowed")
    print("after backward", step, flush=True)

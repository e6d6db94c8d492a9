"""A carried state through activation checkpointing: saved tensors held by unpack hooks."""
# ruff: noqa: B007

import os

import torch
from torch.utils.checkpoint import checkpoint

device = os.environ.get("FIXTURE_DEVICE", "cpu")
torch.manual_seed(0)
cell = torch.nn.Linear(4, 4).to(device)


def step_fn(state):
    return torch.tanh(cell(state))  # built


state = torch.zeros(2, 4, device=device)
for step in range(3):  # loop
    state = checkpoint(step_fn, state + torch.randn(2, 4, device=device), use_reentrant=False)
    state.sum().backward()  # expect: AG001

"""Two independent bugs in one file: two backwards over one output in the first loop
(AG002), a hidden state carried without detach in the second (AG001). The run skips the
first failing backward and goes on, so it reports both."""

import os

import torch

weights = torch.randn(3, 3, requires_grad=True)
inputs = torch.randn(2, 3)
# SECOND_ONLY=1 runs the second loop alone: its bug raises in a plain run too.
for _step in range(0 if os.environ.get("SECOND_ONLY") == "1" else 2):  # first loop
    out = torch.tanh(inputs @ weights)  # built first
    out.sum().backward()  # frees first
    (out * 2).sum().backward()  # first bug
hidden = torch.zeros(1, 3)
for _step in range(3):  # second loop
    hidden = torch.tanh(hidden @ weights)  # built second
    hidden.sum().backward()  # second bug

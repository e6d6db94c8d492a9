"""Hidden state carried without detach(), with retain_graph=True hiding the error: each
backward walks every earlier step's graph again, so the graph (and memory) grows."""

import torch

weights = torch.randn(4, 4, requires_grad=True)
hidden = torch.zeros(1, 4)
for _step in range(6):  # loop
    hidden = torch.tanh(hidden @ weights + 1)
    hidden.sum().backward(retain_graph=True)

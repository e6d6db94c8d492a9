# runnable
# An explicit `retain_graph=False` frees the graph like the default: the second backward
# over the same loss fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk, head = nn.Linear(4, 8), nn.Linear(8, 1)
loss = head(torch.tanh(trunk(torch.randn(16, 4)))).mean()
loss.backward(retain_graph=False)
loss.backward()  # expect: AG002

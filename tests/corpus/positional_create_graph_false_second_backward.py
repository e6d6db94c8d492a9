# runnable
# `backward(None, None, False)`: retain_graph left to default to create_graph, which is
# False by position, so the graph is freed and the second backward over it fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk, head = nn.Linear(4, 8), nn.Linear(8, 1)
loss = head(torch.tanh(trunk(torch.randn(16, 4)))).mean()
loss.backward(None, None, False)
loss.backward()  # expect: AG002

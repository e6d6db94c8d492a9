# runnable
# `backward(None, False)` passes retain_graph=False by position: the graph is freed, and
# the second backward over it fails (the calls before it keep the graph).
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk, head = nn.Linear(4, 8), nn.Linear(8, 1)
keep = True

shared = torch.tanh(trunk(torch.randn(16, 4)))
loss = head(shared).mean()
loss.backward(None, keep)
(g,) = torch.autograd.grad(loss, shared, None, None, keep)
loss.backward(None, False)
loss.backward()  # expect: AG002

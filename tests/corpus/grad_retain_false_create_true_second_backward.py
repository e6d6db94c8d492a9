# runnable
# `autograd.grad(y, x, None, False, True)`: create_graph=True by position, but an explicit
# retain_graph=False still frees the graph (retain_graph defaults to create_graph only
# when it is None), so the backward over `y` that follows fails.
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = (x.tanh() ** 2).sum()
(slope,) = torch.autograd.grad(y, x, None, False, True)
penalty = slope.pow(2).sum()
y.backward()  # expect: AG002

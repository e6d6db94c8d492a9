# runnable
# Older code passes retain_graph / create_graph by position: `backward(gradient,
# retain_graph, create_graph)`, `autograd.grad(outputs, inputs, grad_outputs,
# retain_graph, create_graph)`. Each call below keeps the graph, so every later
# backward over it is fine.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk, head_a, head_b = nn.Linear(4, 8), nn.Linear(8, 1), nn.Linear(8, 1)
keep = True

for step in range(2):
    shared = torch.tanh(trunk(torch.randn(16, 4)))
    loss_a, loss_b = head_a(shared).mean(), head_b(shared).mean()
    loss_a.backward(None, True)  # retain_graph=True by position
    loss_b.backward(None, keep)  # a non-literal retain_graph: counts as keeping
    loss_b.backward()

    x = torch.randn(2, 4, requires_grad=True)
    y = (trunk(x).tanh() ** 2).sum()
    (g,) = torch.autograd.grad(y, x, None, None, True)  # create_graph=True by position
    (h,) = torch.autograd.grad(y, x, None, None, keep)  # non-literal create_graph
    y.backward(None, None, True)  # create_graph=True by position keeps it too
    y.backward()

# runnable
# The backward after `optimizer.step()` sits in a helper: torch raises "modified by an
# inplace operation" inside `finish`, called from the loop. The report has to lead from
# the call in the loop into the helper's backward.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def finish(loss):
    loss.backward()


for step in range(3):
    optimizer.zero_grad()
    first = model(torch.randn(3, 4))
    second = model(torch.randn(3, 4))
    first.sum().backward()
    optimizer.step()  # expect: AG007
    finish(second.sum())

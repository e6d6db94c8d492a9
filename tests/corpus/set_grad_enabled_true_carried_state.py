# runnable
# `torch.set_grad_enabled(True)` turns autograd on even inside `torch.no_grad()`: the
# carried state keeps the first batch's graph, and the second backward fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(3, 5)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.01)
state = torch.zeros(2, 5)

with torch.no_grad(), torch.set_grad_enabled(True):
    for batch in range(3):
        state = cell(torch.randn(2, 3), state)
        loss = state.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # expect: AG001
        optimizer.step()

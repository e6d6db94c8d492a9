# runnable
# Only the oldest loss is dropped after the backward: the other one still points into
# the freed graph, and the next sum reaches it.
import torch
import torch.nn as nn

torch.manual_seed(4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for step in range(4):
    x = torch.randn(8, 4)
    losses.append(model(x).pow(2).mean())
    if len(losses) == 2:
        optimizer.zero_grad()
        sum(losses).backward()  # expect: AG001
        optimizer.step()
        del losses[0]

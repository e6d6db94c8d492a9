# runnable
# Losses gathered over two batches, one backward on their sum, then the list emptied
# in place: `del losses[:]` and `losses[:] = []` do what `losses.clear()` does.
import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for step in range(6):
    x = torch.randn(8, 4)
    losses.append(model(x).pow(2).mean())
    if len(losses) == 2:
        optimizer.zero_grad()
        sum(losses).backward()
        optimizer.step()
        del losses[:]

penalties = []
for step in range(6):
    x = torch.randn(8, 4)
    penalties.append(model(x).abs().mean())
    if len(penalties) == 3:
        optimizer.zero_grad()
        torch.stack(penalties).sum().backward()
        optimizer.step()
        penalties[:] = []

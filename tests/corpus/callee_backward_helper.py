# runnable
# I moved the optimisation into a helper to keep the loop short, and now the
# helper's backward() is where it crashes (second call).
import torch
from torch import nn

torch.manual_seed(6)

cell = nn.RNNCell(4, 8)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)


def optimize(loss):
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    nn.utils.clip_grad_norm_(cell.parameters(), 1.0)
    optimizer.step()
    return loss.item()


series = torch.randn(20, 3, 4)
h = torch.zeros(3, 8)
history = []
for t in range(series.size(0) - 1):
    h = cell(series[t], h)
    pred = head(h)
    loss = nn.functional.mse_loss(pred, series[t + 1, :, :1])
    history.append(optimize(loss))

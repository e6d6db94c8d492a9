# runnable
# Truncated BPTT with `torch.autograd.grad` instead of `backward()`: every k steps the
# gradients of the chunk's loss are taken and applied, then the state is detached, so
# the next chunk never reaches the graph the gradient call freed.
import torch
import torch.nn as nn

torch.manual_seed(34)
cell = nn.GRUCell(1, 16)
readout = nn.Linear(16, 1)
params = [*cell.parameters(), *readout.parameters()]
k = 5

wave = torch.sin(torch.arange(0, 60, dtype=torch.float32) / 4).view(-1, 1, 1)
h = torch.zeros(1, 16)
loss = 0
for t in range(wave.size(0) - 1):
    h = cell(wave[t], h)
    loss = loss + (readout(h) - wave[t + 1]).pow(2).mean()
    if (t + 1) % k == 0:
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 1e-3 * g
        h = h.detach()
        loss = 0

# runnable
# Truncated BPTT with `torch.autograd.grad` instead of `backward()`, and no detach: every
# k steps the gradients of the chunk's loss are taken, but the state keeps its history,
# so the next chunk's gradient call reaches the graph the previous one freed.
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
        grads = torch.autograd.grad(loss, params)  # expect: AG001
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 1e-3 * g
        loss = 0

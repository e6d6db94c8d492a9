# runnable
# Truncated BPTT: accumulate the loss over k time steps, backprop, then cut the
# graph by detaching the state before the next chunk.
import torch
import torch.nn as nn

torch.manual_seed(34)
cell = nn.GRUCell(1, 16)
readout = nn.Linear(16, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-3)
k = 5

wave = torch.sin(torch.arange(0, 60, dtype=torch.float32) / 4).view(-1, 1, 1)
h = torch.zeros(1, 16)
loss = 0
for t in range(wave.size(0) - 1):
    h = cell(wave[t], h)
    loss = loss + (readout(h) - wave[t + 1]).pow(2).mean()
    if (t + 1) % k == 0:
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h = h.detach()
        loss = 0

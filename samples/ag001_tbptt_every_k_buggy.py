"""Truncated back-propagation every K steps over a stream, one step at a time.

Losses are summed over K steps, back-propagated, and the hidden state is detached.
But the loss accumulator is never reset after backward(), so the next window's sum
still contains the previous window's losses and its backward() reaches their
freed graphs.
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES, HIDDEN, K = 3, 16, 5

cell = nn.LSTMCell(FEATURES, HIDDEN)
readout = nn.Linear(HIDDEN, FEATURES)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-3)
stream = torch.randn(4 * K + 1, 1, FEATURES).cumsum(dim=0) * 0.1

h, c = torch.zeros(1, HIDDEN), torch.zeros(1, HIDDEN)
window_loss = 0.0
for t in range(4 * K):
    h, c = cell(stream[t], (h, c))
    window_loss = window_loss + nn.functional.mse_loss(readout(h), stream[t + 1])
    if (t + 1) % K == 0:
        optimizer.zero_grad()
        window_loss.backward()  # expect: AG001
        optimizer.step()
        h, c = h.detach(), c.detach()

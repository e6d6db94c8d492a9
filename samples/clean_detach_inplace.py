"""GRU trained over a long stream, truncating with the in-place `detach_()`.

`hidden.detach_()` cuts the state loose from its history where it stands, the
older spelling of `hidden = hidden.detach()`, so each chunk's backward() stops at
the chunk boundary.
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES, HIDDEN, CHUNK, CHUNKS = 4, 16, 10, 5

rnn = nn.GRU(FEATURES, HIDDEN)
head = nn.Linear(HIDDEN, 1)
optimizer = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-3)
stream = torch.randn(CHUNK * CHUNKS, 1, FEATURES)
targets = stream.sum(dim=-1, keepdim=True).cumsum(dim=0) * 0.1

hidden = torch.zeros(1, 1, HIDDEN)
for start in range(0, CHUNK * CHUNKS, CHUNK):
    hidden.detach_()
    out, hidden = rnn(stream[start : start + CHUNK], hidden)
    loss = nn.functional.mse_loss(head(out), targets[start : start + CHUNK])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

"""Hand-unrolled RNN cell that writes each step's state into a preallocated buffer.

Fixed: the buffer is allocated afresh for every batch, so the copies recorded by
`outputs[t] = h` only ever link it to the current batch's graph.
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES, HIDDEN, STEPS, BATCH = 5, 16, 8, 4

cell = nn.RNNCell(FEATURES, HIDDEN)
readout = nn.Linear(HIDDEN, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-3)
criterion = nn.MSELoss()

batches = [(torch.randn(STEPS, BATCH, FEATURES), torch.randn(BATCH, 1)) for _ in range(4)]

for sequence, target in batches:
    outputs = torch.zeros(STEPS, BATCH, HIDDEN)
    h = torch.zeros(BATCH, HIDDEN)
    for t in range(STEPS):
        h = cell(sequence[t], h)
        outputs[t] = h
    prediction = readout(outputs.mean(dim=0))
    loss = criterion(prediction, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

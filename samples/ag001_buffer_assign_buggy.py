"""Hand-unrolled RNN cell that writes each step's state into a preallocated buffer.

The `outputs` buffer is allocated once and reused for every batch. Writing
`outputs[t] = h` records the copy in the buffer's history, and the buffer keeps
that history into the next batch: the second batch's backward() runs through the
first batch's copies into its freed graph.
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

outputs = torch.zeros(STEPS, BATCH, HIDDEN)
for sequence, target in batches:
    h = torch.zeros(BATCH, HIDDEN)
    for t in range(STEPS):
        h = cell(sequence[t], h)
        outputs[t] = h
    prediction = readout(outputs.mean(dim=0))
    loss = criterion(prediction, target)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

"""Leaky integrate-and-fire layer trained with a sigmoid surrogate for its spikes.

The membrane potential `v` integrates its input over the time steps of a batch,
`v = v * DECAY + current`, but it is initialised only once, before the first
batch. The next batch starts from a potential that still carries the previous
batch's graph, so its backward() runs into that freed graph.
"""

import torch
from torch import nn

torch.manual_seed(0)

INPUTS, NEURONS, CLASSES, STEPS, BATCH = 20, 32, 3, 10, 8
DECAY, THRESHOLD = 0.9, 1.0

synapses = nn.Linear(INPUTS, NEURONS)
readout = nn.Linear(NEURONS, CLASSES)
optimizer = torch.optim.Adam([*synapses.parameters(), *readout.parameters()], lr=1e-3)
criterion = nn.CrossEntropyLoss()

batches = [
    ((torch.rand(STEPS, BATCH, INPUTS) < 0.2).float(), torch.randint(0, CLASSES, (BATCH,)))
    for _ in range(4)
]

v = torch.zeros(BATCH, NEURONS)
for spikes_in, labels in batches:
    spike_count = torch.zeros(BATCH, NEURONS)
    for t in range(STEPS):
        v = v * DECAY + synapses(spikes_in[t])
        spikes = torch.sigmoid(5.0 * (v - THRESHOLD))
        v = v - spikes * THRESHOLD
        spike_count = spike_count + spikes
    loss = criterion(readout(spike_count / STEPS), labels)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

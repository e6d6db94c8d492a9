"""A stateful layer from an installed library: snntorch's Leaky neuron with
init_hidden=True keeps its membrane potential on the layer between forward calls, so the
next batch's graph runs into the previous batch's one."""

import snntorch
import torch

torch.manual_seed(0)
fc = torch.nn.Linear(4, 4)
lif = snntorch.Leaky(beta=0.9, init_hidden=True)
optimizer = torch.optim.SGD(fc.parameters(), lr=0.1)
for _batch in range(3):  # loop
    spikes = lif(fc(torch.randn(2, 4)))  # built
    loss = spikes.sum() + lif.mem.pow(2).sum()
    optimizer.zero_grad()
    loss.backward()  # fails
    optimizer.step()

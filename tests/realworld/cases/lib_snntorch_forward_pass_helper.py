# Source: https://github.com/jeshraghian/snntorch/issues/250
# Rebuilt in our own words: a small spiking CNN whose Leaky neurons keep their membrane (init_hidden=True) is driven by a free forward_pass helper that loops over time steps, then trained batch after batch.
# Mechanism: module state in library layer
import torch
import torch.nn as nn
import snntorch as snn
from snntorch import surrogate

spike_grad = surrogate.fast_sigmoid(slope=25)
num_steps = 20


class SpikingConvNet(nn.Module):
    def __init__(self, beta=0.85):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 8, 5),
            nn.MaxPool2d(2),
            snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True),
            nn.Conv2d(8, 16, 5),
            nn.MaxPool2d(2),
            snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True),
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, 10),
            snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True, output=True),
        )

    def forward(self, x):
        return self.net(x)


def forward_pass(net, steps, data):
    spikes = []
    membranes = []
    for _ in range(steps):
        spk, mem = net(data)
        spikes.append(spk)
        membranes.append(mem)
    return torch.stack(spikes), torch.stack(membranes)


model = SpikingConvNet()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3, betas=(0.9, 0.999))
criterion = nn.CrossEntropyLoss()

for epoch in range(2):
    for images, labels in train_loader:
        spk_rec, mem_rec = forward_pass(model, num_steps, images)
        loss = torch.zeros(())
        for step in range(num_steps):
            loss = loss + criterion(mem_rec[step], labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.3f}")

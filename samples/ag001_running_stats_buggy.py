"""A centering layer that subtracts an exponential moving average of its input.

The moving average is updated in `forward` from the activations themselves, which
carry the current batch's graph, and it is stored on the module. The next batch
subtracts it, so its backward() runs back into the previous batch's freed graph.
"""

import torch
from torch import nn

torch.manual_seed(0)


class EMACenter(nn.Module):
    def __init__(self, dim, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(dim))

    def forward(self, x):
        if self.training:
            batch_mean = x.mean(dim=0)
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * batch_mean
        return x - self.running_mean


model = nn.Sequential(nn.Linear(6, 32), EMACenter(32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
batches = [(torch.randn(16, 6), torch.randn(16, 1)) for _ in range(4)]

for x, y in batches:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

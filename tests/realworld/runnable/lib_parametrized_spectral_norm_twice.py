# Source: https://github.com/pytorch/pytorch/issues/66363
# Rebuilt in our own words: a block applies the same parametrizations.spectral_norm convolution two times inside its forward, then trains on the result.
# Mechanism: parametrization recomputed on each access
import torch
import torch.nn as nn
from torch.nn.utils.parametrizations import spectral_norm

torch.manual_seed(0)


class RepeatedSN(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.conv = spectral_norm(nn.Conv2d(channels, channels, 3, 1, 1))
        self.act = nn.LeakyReLU(0.2)

    def forward(self, x):
        h = self.act(self.conv(x))
        h = self.act(self.conv(h))
        return h


block = RepeatedSN()
optimizer = torch.optim.Adam(block.parameters(), lr=1e-3)
for _ in range(3):
    image = torch.randn(2, 3, 6, 6)
    loss = block(image).abs().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done")

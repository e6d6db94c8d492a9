# Source: https://github.com/pytorch/pytorch/issues/90158
# Rebuilt in our own words: a small space-time network takes two Adam steps on collocation times made by shifting and scaling a random tensor created with requires_grad=True.
# Mechanism: graph-carrying input built before loop
import torch
from torch import nn


class SpaceTimeNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(2, width),
            nn.Tanh(),
            nn.Linear(width, width),
            nn.Tanh(),
            nn.Linear(width, 1),
        )

    def forward(self, x, t):
        z = torch.cat([x, t], dim=1)
        for layer in self.layers:
            z = layer(z)
        return z


net = SpaceTimeNet()
xs = torch.empty(32, 1).uniform_(0.0, 2.0)
xs.requires_grad_()
ts = 0.5 + 2.0 * torch.rand(32, 1, requires_grad=True)
ts.requires_grad_()

optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

residual = torch.mean(net(xs, ts) ** 2)
optimizer.zero_grad()
residual.backward()
optimizer.step()

residual = torch.mean(net(xs, ts) ** 2)
optimizer.zero_grad()
residual.backward()
optimizer.step()

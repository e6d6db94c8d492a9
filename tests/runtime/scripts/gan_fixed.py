"""A GAN step where the generator's output feeds both losses detached for the discriminator's loss."""
# ruff: noqa: B007

import os

import torch
from torch import nn

device = os.environ.get("FIXTURE_DEVICE", "cpu")
torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
discriminator = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()


def real_batch():
    return torch.randn(8, 2, device=device) * 0.5 + 1.0


for step in range(4):  # loop
    fake = torch.tanh(generator(torch.randn(8, 4, device=device)))  # built
    ones = torch.ones(8, 1, device=device)
    zeros = torch.zeros(8, 1, device=device)
    d_loss = bce(discriminator(real_batch()), ones) + bce(discriminator(fake.detach()), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(discriminator(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()

"""Minimal GAN on 2-D points.

Fixed: the discriminator step uses `fake.detach()`, and the generator's loss runs
the (updated) discriminator on `fake` again, after the step: its graph saves the
new weights, and no graph needs to be retained.
"""

import torch
from torch import nn

torch.manual_seed(0)

LATENT, BATCH = 4, 32
generator = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, 2))
discriminator = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
g_optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
d_optimizer = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
real_label = torch.ones(BATCH, 1)
fake_label = torch.zeros(BATCH, 1)

for step in range(3):
    real = torch.randn(BATCH, 2) * 0.5 + torch.tensor([2.0, -1.0])
    fake = generator(torch.randn(BATCH, LATENT))

    d_optimizer.zero_grad()
    d_loss = bce(discriminator(real), real_label) + bce(discriminator(fake.detach()), fake_label)
    d_loss.backward()
    d_optimizer.step()

    g_optimizer.zero_grad()
    g_loss = bce(discriminator(fake), real_label)
    g_loss.backward()
    g_optimizer.step()

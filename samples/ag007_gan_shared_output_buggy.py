"""Minimal GAN on 2-D points, written to run the discriminator on `fake` only once.

Bug: the generator's loss reuses `d_fake`, computed before the discriminator's step.
`retain_graph=True` keeps that graph for the generator's backward, but
`d_optimizer.step()` updates the discriminator's weights in place, and the graph
saved them: g_loss.backward() raises "one of the variables needed for gradient
computation has been modified by an inplace operation" (the error many GANs met
with PyTorch 1.5).
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
    d_fake = discriminator(fake)

    d_optimizer.zero_grad()
    d_loss = bce(discriminator(real), real_label) + bce(d_fake, fake_label)
    d_loss.backward(retain_graph=True)
    d_optimizer.step()  # expect: AG007

    g_optimizer.zero_grad()
    g_loss = bce(d_fake, real_label)
    g_loss.backward()
    g_optimizer.step()

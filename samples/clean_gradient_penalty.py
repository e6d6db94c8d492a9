"""WGAN-GP critic step: a gradient penalty computed with a double backward.

`torch.autograd.grad(..., create_graph=True)` keeps the critic's graph (it retains
it by default when building a graph), so the penalty and the critic loss can be
back-propagated together afterwards.
"""

import torch
from torch import nn

torch.manual_seed(0)

LATENT, BATCH, GP_WEIGHT = 8, 32, 10.0
generator = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))
g_optimizer = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.0, 0.9))
c_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))


def gradient_penalty(real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(mixed)
    (grads,) = torch.autograd.grad(scores.sum(), mixed, create_graph=True)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


for step in range(4):
    real = torch.randn(BATCH, 2) + 3.0
    fake = generator(torch.randn(BATCH, LATENT))

    c_loss = critic(fake.detach()).mean() - critic(real).mean()
    c_loss = c_loss + GP_WEIGHT * gradient_penalty(real, fake.detach())
    c_optimizer.zero_grad()
    c_loss.backward()
    c_optimizer.step()

    g_loss = -critic(fake).mean()
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()

"""WGAN with several critic updates per generator update.

Fixed: the critic iterations score `fake.detach()`, so their backward() stops at
the generator's output; the generator step then back-propagates through `fake`
once, into a generator graph that is still intact.
"""

import torch
from torch import nn

torch.manual_seed(0)

LATENT, BATCH, N_CRITIC, CLIP = 8, 32, 3, 0.01
generator = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
g_optimizer = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
c_optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)

for step in range(3):
    fake = generator(torch.randn(BATCH, LATENT))
    for _ in range(N_CRITIC):
        real = torch.randn(BATCH, 2) + 3.0
        c_loss = critic(fake.detach()).mean() - critic(real).mean()
        c_optimizer.zero_grad()
        c_loss.backward()
        c_optimizer.step()
        with torch.no_grad():
            for p in critic.parameters():
                p.clamp_(-CLIP, CLIP)

    g_loss = -critic(fake).mean()
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()

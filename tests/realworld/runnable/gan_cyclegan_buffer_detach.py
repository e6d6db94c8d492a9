# Source: https://github.com/eriklindernoren/PyTorch-GAN/issues/71
# Rebuilt in our own words: CycleGAN script that first updates both generators on identity, adversarial and cycle losses, then updates each discriminator on a fake batch drawn from a history buffer of earlier fakes.
# Mechanism: detached at use site
# Runnable completion: tiny conv generators/discriminators, a copy of the repository's
# ReplayBuffer idea (it keeps element.data) and random image pairs replace models/datasets/utils.
import itertools
import random

import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)


class GeneratorResNet(nn.Module):
    def __init__(self, res_blocks=1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 6, 3, padding=1),
            nn.InstanceNorm2d(6),
            nn.ReLU(),
            nn.Conv2d(6, 3, 3, padding=1),
            nn.Tanh(),
        )

    def forward(self, x):
        return self.net(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 6, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(6, 1, 3, padding=1)
        )

    def forward(self, x):
        return self.net(x)


def weights_init_normal(m):
    if isinstance(m, nn.Conv2d):
        nn.init.normal_(m.weight.data, 0.0, 0.02)


class ReplayBuffer:
    def __init__(self, max_size=4):
        self.max_size = max_size
        self.data = []

    def push_and_pop(self, batch):
        out = []
        for element in batch.data:
            element = torch.unsqueeze(element, 0)
            if len(self.data) < self.max_size:
                self.data.append(element)
                out.append(element)
            elif random.uniform(0, 1) > 0.5:
                j = random.randint(0, self.max_size - 1)
                out.append(self.data[j].clone())
                self.data[j] = element
            else:
                out.append(element)
        return torch.cat(out)


n_epochs = 2
lambda_cyc = 10.0
lambda_id = 5.0

G_AB, G_BA = GeneratorResNet(res_blocks=6), GeneratorResNet(res_blocks=6)
D_A, D_B = Discriminator(), Discriminator()
for net in (G_AB, G_BA, D_A, D_B):
    net.apply(weights_init_normal)

gan_loss = torch.nn.MSELoss()
cycle_loss = torch.nn.L1Loss()
identity_loss = torch.nn.L1Loss()

optimizer_G = torch.optim.Adam(
    itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=2e-4, betas=(0.5, 0.999)
)
optimizer_D_A = torch.optim.Adam(D_A.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D_B = torch.optim.Adam(D_B.parameters(), lr=2e-4, betas=(0.5, 0.999))

history_A = ReplayBuffer()
history_B = ReplayBuffer()
loader = [
    {"A": torch.rand(1, 3, 8, 8) * 2 - 1, "B": torch.rand(1, 3, 8, 8) * 2 - 1} for _ in range(4)
]

for epoch in range(n_epochs):
    for i, batch in enumerate(loader):
        real_A, real_B = batch["A"], batch["B"]

        optimizer_G.zero_grad()
        loss_identity = (
            identity_loss(G_BA(real_A), real_A) + identity_loss(G_AB(real_B), real_B)
        ) / 2
        fake_B = G_AB(real_A)
        pred_B = D_B(fake_B)
        fake_A = G_BA(real_B)
        pred_A = D_A(fake_A)
        loss_GAN = (
            gan_loss(pred_B, torch.ones_like(pred_B)) + gan_loss(pred_A, torch.ones_like(pred_A))
        ) / 2
        loss_cycle = (cycle_loss(G_BA(fake_B), real_A) + cycle_loss(G_AB(fake_A), real_B)) / 2
        loss_G = loss_GAN + lambda_cyc * loss_cycle + lambda_id * loss_identity
        loss_G.backward()
        optimizer_G.step()

        optimizer_D_A.zero_grad()
        score_real = D_A(real_A)
        past_A = history_A.push_and_pop(fake_A)
        score_fake = D_A(past_A.detach())
        loss_D_A = (
            gan_loss(score_real, torch.ones_like(score_real))
            + gan_loss(score_fake, torch.zeros_like(score_fake))
        ) / 2
        loss_D_A.backward()
        optimizer_D_A.step()

        optimizer_D_B.zero_grad()
        score_real = D_B(real_B)
        past_B = history_B.push_and_pop(fake_B)
        score_fake = D_B(past_B.detach())
        loss_D_B = (
            gan_loss(score_real, torch.ones_like(score_real))
            + gan_loss(score_fake, torch.zeros_like(score_fake))
        ) / 2
        loss_D_B.backward()
        optimizer_D_B.step()

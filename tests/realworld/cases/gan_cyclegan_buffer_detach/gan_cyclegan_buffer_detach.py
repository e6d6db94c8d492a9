# Source: https://github.com/eriklindernoren/PyTorch-GAN/issues/71
# Rebuilt in our own words: CycleGAN script that first updates both generators on identity, adversarial and cycle losses, then updates each discriminator on a fake batch drawn from a history buffer of earlier fakes.
# Mechanism: detached at use site
import itertools

import torch
from torch.utils.data import DataLoader

from models import GeneratorResNet, Discriminator
from datasets import ImageDataset
from utils import ReplayBuffer, weights_init_normal

n_epochs = 100
lambda_cyc = 10.0
lambda_id = 5.0

G_AB, G_BA = GeneratorResNet(res_blocks=6), GeneratorResNet(res_blocks=6)
D_A, D_B = Discriminator(), Discriminator()
for net in (G_AB, G_BA, D_A, D_B):
    net.apply(weights_init_normal)

gan_loss = torch.nn.MSELoss()
cycle_loss = torch.nn.L1Loss()
identity_loss = torch.nn.L1Loss()

optimizer_G = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=2e-4, betas=(0.5, 0.999))
optimizer_D_A = torch.optim.Adam(D_A.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D_B = torch.optim.Adam(D_B.parameters(), lr=2e-4, betas=(0.5, 0.999))

history_A = ReplayBuffer()
history_B = ReplayBuffer()
loader = DataLoader(ImageDataset("data/horse2zebra", unaligned=True), batch_size=1, shuffle=True)

for epoch in range(n_epochs):
    for i, batch in enumerate(loader):
        real_A, real_B = batch["A"], batch["B"]

        optimizer_G.zero_grad()
        loss_identity = (identity_loss(G_BA(real_A), real_A) + identity_loss(G_AB(real_B), real_B)) / 2
        fake_B = G_AB(real_A)
        pred_B = D_B(fake_B)
        fake_A = G_BA(real_B)
        pred_A = D_A(fake_A)
        loss_GAN = (gan_loss(pred_B, torch.ones_like(pred_B)) + gan_loss(pred_A, torch.ones_like(pred_A))) / 2
        loss_cycle = (cycle_loss(G_BA(fake_B), real_A) + cycle_loss(G_AB(fake_A), real_B)) / 2
        loss_G = loss_GAN + lambda_cyc * loss_cycle + lambda_id * loss_identity
        loss_G.backward()
        optimizer_G.step()

        optimizer_D_A.zero_grad()
        score_real = D_A(real_A)
        past_A = history_A.push_and_pop(fake_A)
        score_fake = D_A(past_A.detach())
        loss_D_A = (gan_loss(score_real, torch.ones_like(score_real)) + gan_loss(score_fake, torch.zeros_like(score_fake))) / 2
        loss_D_A.backward()
        optimizer_D_A.step()

        optimizer_D_B.zero_grad()
        score_real = D_B(real_B)
        past_B = history_B.push_and_pop(fake_B)
        score_fake = D_B(past_B.detach())
        loss_D_B = (gan_loss(score_real, torch.ones_like(score_real)) + gan_loss(score_fake, torch.zeros_like(score_fake))) / 2
        loss_D_B.backward()
        optimizer_D_B.step()

# Source: https://pytroubles.com/ru/posts/id2658-gan-v-pytorch-ispravljaem-oshibku-backward-cherez-detach
# Rebuilt in our own words: MNIST GAN that takes several generator steps per batch and then a discriminator step; the discriminator's fake term is scored on the fake batch left over from the generator loop.
# Mechanism: shared output two backwards
import torch
import torch.nn as nn

latent_dim = 64
g_update_factor = 3
d_update_factor = 1

netG = nn.Sequential(nn.Linear(latent_dim, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh()).to(dev)
netD = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1), nn.Sigmoid()).to(dev)
optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
bce_loss = nn.BCELoss()

for epoch in range(total_epochs):
    for batch_id, (real_batch, _) in enumerate(data_stream):
        real_batch = real_batch.view(-1, 784).to(dev)
        bsz = real_batch.shape[0]

        for _ in range(g_update_factor):
            z = torch.randn(bsz, latent_dim).to(dev)
            fake_batch = netG(z)
            gen_scores = netD(fake_batch).view(-1)
            g_loss = bce_loss(gen_scores, torch.ones_like(gen_scores))
            g_loss.backward()
            optG.step()
            netG.zero_grad()

        for _ in range(d_update_factor):
            netD.zero_grad()
            real_scores = netD(real_batch).view(-1)
            loss_real = bce_loss(real_scores, torch.ones_like(real_scores))
            fake_scores = netD(fake_batch).view(-1)
            loss_fake = bce_loss(fake_scores, torch.zeros_like(fake_scores))
            d_loss = loss_real + loss_fake
            d_loss.backward()
            optD.step()

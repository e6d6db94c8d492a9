# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/2820
# Rebuilt in our own words: a StyleGAN-like LightningModule with two optimizers computes an R1-style discriminator regularizer only every few batches inside training_step, keeps it in a self attribute, and applies it with its own backward and optimizer step from an overridden optimizer_step hook.
# Mechanism: state in self attribute across calls
#
# The post used Lightning 1.x (optimizer_idx in training_step, an overridden optimizer_step).
# Lightning 2 requires manual optimization for two optimizers, so training_step below drives
# the same order by hand: the discriminator's loss is stepped first, then the regularizer
# kept in self gets its own backward and step (what the post's optimizer_step did).
import types

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)


class losses:
    @staticmethod
    def d_loss(d_real, d_fake):
        return F.softplus(-d_real).mean() + F.softplus(d_fake).mean()

    @staticmethod
    def g_loss(d_fake):
        return F.softplus(-d_fake).mean()

    @staticmethod
    def d_reg_loss(d_real, real):
        (grad,) = torch.autograd.grad(d_real.sum(), real, create_graph=True)
        return grad.pow(2).flatten(1).sum(1).mean()


class Generator(nn.Module):
    def __init__(self, latent_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 6))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 16), nn.Softplus(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class RegularizedGAN(L.LightningModule):
    def __init__(self, args):
        super().__init__()
        self.automatic_optimization = False
        self.args = args
        self.latent_dim = args.latent_dim
        self.generator = Generator(args.latent_dim)
        self.discriminator = Discriminator()
        self.d_reg_loss = None

    def configure_optimizers(self):
        d_opt = torch.optim.Adam(
            self.discriminator.parameters(), lr=self.args.lr, betas=(0.0, 0.99)
        )
        g_opt = torch.optim.Adam(self.generator.parameters(), lr=self.args.lr, betas=(0.0, 0.99))
        return [d_opt, g_opt]

    def discriminator_optimizer_step(self, optimizer, d_loss):
        self.manual_backward(d_loss)
        optimizer.step()
        optimizer.zero_grad()
        self.manual_backward(self.args.r1_weight * self.d_reg_loss)  # realworld: fails
        optimizer.step()
        optimizer.zero_grad()

    def training_step(self, batch, batch_idx):
        d_opt, g_opt = self.optimizers()
        real = batch
        n = real.shape[0]
        z = torch.randn(n, self.latent_dim).to(self.device)

        fake = self.generator(z)
        d_fake = self.discriminator(fake)
        d_real = self.discriminator(real)
        d_loss = losses.d_loss(d_real, d_fake)
        if batch_idx % self.args.d_reg_every == 0:
            real.requires_grad = True
            d_real = self.discriminator(real)
            self.d_reg_loss = losses.d_reg_loss(d_real, real)
        self.discriminator_optimizer_step(d_opt, d_loss)

        fake = self.generator(z)
        g_loss = losses.g_loss(self.discriminator(fake))
        self.manual_backward(g_loss)
        g_opt.step()
        g_opt.zero_grad()


args = types.SimpleNamespace(latent_dim=4, lr=2e-3, d_reg_every=4, r1_weight=5.0)
trainer = L.Trainer(
    max_epochs=1,
    limit_train_batches=3,
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
    accelerator="cpu",
)
trainer.fit(RegularizedGAN(args), DataLoader([torch.randn(6) for _ in range(8)], batch_size=2))

# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/2820
# Rebuilt in our own words: a StyleGAN-like LightningModule with two optimizers computes an R1-style discriminator regularizer only every few batches inside training_step, keeps it in a self attribute, and applies it with its own backward and optimizer step from an overridden optimizer_step hook.
# Mechanism: state in self attribute across calls
import torch
import pytorch_lightning as pl

import losses
from models import Generator, Discriminator


class RegularizedGAN(pl.LightningModule):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.latent_dim = args.latent_dim
        self.generator = Generator(args.latent_dim)
        self.discriminator = Discriminator()
        self.d_reg_loss = None

    def configure_optimizers(self):
        d_opt = torch.optim.Adam(self.discriminator.parameters(), lr=self.args.lr, betas=(0.0, 0.99))
        g_opt = torch.optim.Adam(self.generator.parameters(), lr=self.args.lr, betas=(0.0, 0.99))
        return [d_opt, g_opt]

    def training_step(self, batch, batch_idx, optimizer_idx):
        real = batch
        n = real.shape[0]
        z = torch.randn(n, self.latent_dim).to(self.device)

        if optimizer_idx == 0:
            fake = self.generator(z)
            d_fake = self.discriminator(fake)
            d_real = self.discriminator(real)
            d_loss = losses.d_loss(d_real, d_fake)
            if batch_idx % self.args.d_reg_every == 0:
                real.requires_grad = True
                d_real = self.discriminator(real)
                self.d_reg_loss = losses.d_reg_loss(d_real, real)
            return {"loss": d_loss}

        if optimizer_idx == 1:
            fake = self.generator(z)
            g_loss = losses.g_loss(self.discriminator(fake))
            return {"loss": g_loss}

    def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_idx,
                       second_order_closure=None, on_tpu=False, using_native_amp=False, using_lbfgs=False):
        optimizer.step()
        optimizer.zero_grad()
        if optimizer_idx == 0:
            (self.args.r1_weight * self.d_reg_loss).backward()
            optimizer.step()
            optimizer.zero_grad()

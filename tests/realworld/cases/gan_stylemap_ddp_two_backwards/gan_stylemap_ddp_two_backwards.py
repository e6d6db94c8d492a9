# Source: https://github.com/naver-ai/StyleMapGAN/issues/16
# Rebuilt in our own words: StyleMapGAN-style training script; one wrapper module returns both the adversarial loss and the encoder's style-reconstruction loss (computed on detached fakes), the wrapper runs under DistributedDataParallel with find_unused_parameters=True, and the two losses are back-propagated one after the other.
# Mechanism: module state in library layer
import argparse

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from training.model import Generator, Discriminator, Encoder


def requires_grad(net, flag=True):
    for p in net.parameters():
        p.requires_grad = flag


class StyleMapWrapper(nn.Module):
    def __init__(self, args, device):
        super().__init__()
        self.args = args
        self.device = device
        self.generator = Generator(args.size, args.mapping_layer_num, args.latent_channel_size)
        self.discriminator = Discriminator(args.size)
        self.encoder = Encoder(args.size, args.latent_channel_size)
        self.mse_loss = nn.MSELoss()

    def forward(self, real_img, mode):
        if mode == "G":
            z = torch.randn(self.args.batch_per_gpu, self.args.latent_channel_size, device=self.device)
            fake_img, stylecode = self.generator(z, return_stylecode=True)
            fake_pred = self.discriminator(fake_img)
            adv_loss = F.softplus(-fake_pred).mean()
            fake_img = fake_img.detach()
            stylecode = stylecode.detach()
            rec_code = self.encoder(fake_img)
            w_rec_loss = self.mse_loss(stylecode, rec_code)
            return adv_loss, w_rec_loss, stylecode
        elif mode == "D":
            with torch.no_grad():
                z = torch.randn(self.args.batch_per_gpu, self.args.latent_channel_size, device=self.device)
                fake_img, _ = self.generator(z)
            real_pred = self.discriminator(real_img)
            fake_pred = self.discriminator(fake_img)
            d_loss = (F.softplus(-real_pred) + F.softplus(fake_pred)).mean()
            return d_loss, real_pred.mean(), fake_pred.mean()


def train(args, loader, rank):
    device = torch.device("cuda", rank)
    model = StyleMapWrapper(args, device).to(device)
    model = DDP(model, device_ids=[rank], find_unused_parameters=True)
    model.train()

    g_optim = torch.optim.Adam(model.module.generator.parameters(), lr=args.lr, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(model.module.discriminator.parameters(), lr=args.lr, betas=(0.0, 0.99))
    e_optim = torch.optim.Adam(model.module.encoder.parameters(), lr=args.lr, betas=(0.0, 0.99))

    requires_grad(model.module.discriminator, False)
    for i in range(args.iter):
        real_img = next(loader).to(device)

        adv_loss, w_rec_loss, stylecode = model(None, "G")
        adv_loss = adv_loss.mean()
        g_loss = adv_loss * args.lambda_adv_loss

        g_optim.zero_grad()
        g_loss.backward()
        g_optim.step()

        w_rec_loss = w_rec_loss.mean()
        e_optim.zero_grad()
        (w_rec_loss * args.lambda_w_rec_loss).backward()
        e_optim.step()

        requires_grad(model.module.discriminator, True)
        d_loss, real_score, fake_score = model(real_img, "D")
        d_optim.zero_grad()
        d_loss.mean().backward()
        d_optim.step()
        requires_grad(model.module.discriminator, False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--iter", type=int, default=1400000)
    parser.add_argument("--batch_per_gpu", type=int, default=8)
    parser.add_argument("--latent_channel_size", type=int, default=64)
    parser.add_argument("--mapping_layer_num", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--lambda_adv_loss", type=float, default=1.0)
    parser.add_argument("--lambda_w_rec_loss", type=float, default=1.0)
    args = parser.parse_args()
    dist.init_process_group(backend="nccl", init_method="env://")
    train(args, sample_data(train_loader), dist.get_rank())

# Source: https://github.com/naver-ai/StyleMapGAN/blob/3a70e07fbe97a9a9128a94c1e48661f8375d445d/training/model.py
# Rebuilt in our own words: the three networks of StyleMapGAN the training wrapper holds.
# The generator maps z through a pixel-normalised MLP to a spatial style map and decodes
# it to an image, returning (image, style map) or (image, None); the encoder maps an
# image back to a style map; the discriminator scores an image with a minibatch-stddev
# channel. All stateless. The repository's modulated convolutions, blur kernels and
# equalised learning rates are reduced to plain layers with the same inputs and outputs.
import math

import torch
from torch import nn
from torch.nn import functional as F


class PixelNorm(nn.Module):
    def forward(self, x):
        return x * torch.rsqrt(torch.mean(x**2, dim=1, keepdim=True) + 1e-8)


class Generator(nn.Module):
    def __init__(self, size, mapping_layer_num, style_dim, latent_spatial_size=8):
        super().__init__()
        self.size, self.style_dim, self.latent_spatial_size = size, style_dim, latent_spatial_size
        layers = [PixelNorm()]
        for i in range(mapping_layer_num):
            out = style_dim * latent_spatial_size**2 if i == mapping_layer_num - 1 else style_dim
            layers += [nn.Linear(style_dim, out), nn.LeakyReLU(0.2)]
        self.mapping_z = nn.Sequential(*layers)
        self.decoder = nn.Sequential(nn.Conv2d(style_dim, 32, 3, padding=1), nn.LeakyReLU(0.2),
                                     nn.Conv2d(32, 3, 1))  # fmt: skip

    def forward(self, z, return_stylecode=False, input_is_stylecode=False):
        if input_is_stylecode:
            stylecode = z
        else:
            stylecode = self.mapping_z(z).reshape(
                z.shape[0], -1, self.latent_spatial_size, self.latent_spatial_size
            )
        image = F.interpolate(self.decoder(stylecode), size=self.size)
        return (image, stylecode) if return_stylecode else (image, None)


class Encoder(nn.Module):
    def __init__(self, size, style_dim, latent_spatial_size=8):
        super().__init__()
        steps = int(math.log(size, 2)) - int(math.log(latent_spatial_size, 2))
        layers, channels = [nn.Conv2d(3, 32, 1)], 32
        for _ in range(steps):
            layers += [nn.Conv2d(channels, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.2)]
        self.convs = nn.Sequential(*layers)
        self.final_conv = nn.Conv2d(32, style_dim, 3, padding=1)

    def forward(self, image):
        return self.final_conv(self.convs(image))  # the spatial style code


class Discriminator(nn.Module):
    def __init__(self, size, stddev_group=4):
        super().__init__()
        steps = int(math.log(size, 2)) - 2
        layers = [nn.Conv2d(3, 32, 1)]
        for _ in range(steps):
            layers += [nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.2)]
        self.convs = nn.Sequential(*layers)
        self.stddev_group = stddev_group
        self.final_conv = nn.Conv2d(33, 32, 3, padding=1)
        self.final_linear = nn.Linear(32 * 4 * 4, 1)

    def forward(self, image):
        out = self.convs(image)
        batch, channel, height, width = out.shape
        group = min(batch, self.stddev_group)
        stddev = out.view(group, -1, 1, channel, height, width)
        stddev = torch.sqrt(stddev.var(0, unbiased=False) + 1e-8).mean([2, 3, 4], keepdim=True)
        stddev = stddev.squeeze(2).repeat(group, 1, height, width)
        out = self.final_conv(torch.cat([out, stddev], 1))
        return self.final_linear(out.view(batch, -1))

# Source: https://github.com/VITA-Group/DeblurGANv2/blob/c16bd9f5be63885389a57202c74023531d9ca086/models/networks.py
# Rebuilt in our own words: `get_nets(config)` builds the generator and the critic the
# trainer uses, each wrapped in nn.DataParallel: a ResNet generator (reflection-padded
# stem, two strided convolutions, residual blocks, two transposed convolutions, tanh) that
# learns a residual added to its input and clamped to [-1, 1], and the PatchGAN critic
# (strided 4x4 convolutions with leaky ReLU, a 1-channel map). Only the 'resnet' and
# 'patch_gan' choices of the repository's list are kept; fewer channels.
import functools

import torch
import torch.nn as nn


def get_norm_layer(norm_type="instance"):
    if norm_type == "batch":
        return functools.partial(nn.BatchNorm2d, affine=True)
    if norm_type == "instance":
        return functools.partial(nn.InstanceNorm2d, affine=False, track_running_stats=True)
    raise NotImplementedError(f"normalization layer [{norm_type}] is not found")


class ResnetBlock(nn.Module):
    def __init__(self, dim, norm_layer):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3), norm_layer(dim), nn.ReLU(True),
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3), norm_layer(dim),
        )  # fmt: skip

    def forward(self, x):
        return x + self.conv_block(x)


class ResnetGenerator(nn.Module):
    def __init__(self, channels=3, ngf=16, norm_layer=nn.BatchNorm2d, n_blocks=6, learn_residual=True):
        super().__init__()
        self.learn_residual = learn_residual
        layers = [nn.ReflectionPad2d(3), nn.Conv2d(channels, ngf, 7), norm_layer(ngf), nn.ReLU(True)]
        for mult in (1, 2):
            layers += [nn.Conv2d(ngf * mult, ngf * mult * 2, 3, stride=2, padding=1),
                       norm_layer(ngf * mult * 2), nn.ReLU(True)]  # fmt: skip
        layers += [ResnetBlock(ngf * 4, norm_layer) for _ in range(n_blocks)]
        for mult in (4, 2):
            layers += [nn.ConvTranspose2d(ngf * mult, ngf * mult // 2, 3, stride=2, padding=1,
                                          output_padding=1),
                       norm_layer(ngf * mult // 2), nn.ReLU(True)]  # fmt: skip
        layers += [nn.ReflectionPad2d(3), nn.Conv2d(ngf, channels, 7), nn.Tanh()]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        output = self.model(x)
        if self.learn_residual:
            output = torch.clamp(x + output, min=-1, max=1)
        return output


class NLayerDiscriminator(nn.Module):
    def __init__(self, channels=3, ndf=16, n_layers=3, norm_layer=nn.BatchNorm2d):
        super().__init__()
        layers = [nn.Conv2d(channels, ndf, 4, stride=2, padding=2), nn.LeakyReLU(0.2, True)]
        mult = 1
        for n in range(1, n_layers + 1):
            previous, mult = mult, min(2**n, 8)
            stride = 2 if n < n_layers else 1
            layers += [nn.Conv2d(ndf * previous, ndf * mult, 4, stride=stride, padding=2),
                       norm_layer(ndf * mult), nn.LeakyReLU(0.2, True)]  # fmt: skip
        layers += [nn.Conv2d(ndf * mult, 1, 4, padding=2)]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


def get_generator(config):
    norm = get_norm_layer(config["norm_layer"])
    return nn.DataParallel(ResnetGenerator(norm_layer=norm, n_blocks=config["blocks"]))


def get_discriminator(config):
    norm = get_norm_layer(config["norm_layer"])
    return nn.DataParallel(NLayerDiscriminator(n_layers=config["d_layers"], norm_layer=norm))


def get_nets(config):
    return get_generator(config), get_discriminator(config)

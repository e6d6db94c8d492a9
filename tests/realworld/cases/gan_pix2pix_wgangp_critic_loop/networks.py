# Source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/blob/78913853ab4a4f5eba717af8433809300c99f0bb/models/networks.py
# Rebuilt in our own words: `define_G` / `define_D` build the generator and the
# discriminator by name with normally initialised weights: a U-Net generator with skip
# connections (the repository's 'unet_256'; depth reduced here) or a ResNet one, and the
# PatchGAN discriminator ('basic': strided 4x4 convolutions, batch norm, leaky ReLU, a
# 1-channel map). Stateless modules: each call builds a fresh graph.
import torch
import torch.nn as nn
from torch.nn import init


def init_weights(net, init_gain=0.02):
    def init_one(m):
        name = m.__class__.__name__
        if hasattr(m, "weight") and (name.find("Conv") != -1 or name.find("Linear") != -1):
            init.normal_(m.weight.data, 0.0, init_gain)
            if getattr(m, "bias", None) is not None:
                init.constant_(m.bias.data, 0.0)
        elif name.find("BatchNorm2d") != -1:
            init.normal_(m.weight.data, 1.0, init_gain)
            init.constant_(m.bias.data, 0.0)

    net.apply(init_one)
    return net


class UnetBlock(nn.Module):
    """One level of the U-Net: down, the inner levels, up, and the skip concatenation."""

    def __init__(self, outer, inner, inner_block=None, in_channels=None, outermost=False):
        super().__init__()
        self.outermost = outermost
        in_channels = in_channels or outer
        down = [nn.LeakyReLU(0.2, True), nn.Conv2d(in_channels, inner, 4, stride=2, padding=1)]
        up_in = inner * 2 if inner_block is not None else inner
        up = [nn.ReLU(True), nn.ConvTranspose2d(up_in, outer, 4, stride=2, padding=1)]
        if outermost:
            down, up = down[1:], [*up, nn.Tanh()]
        else:
            up.append(nn.BatchNorm2d(outer))
        middle = [inner_block] if inner_block is not None else []
        self.model = nn.Sequential(*down, *middle, *up)

    def forward(self, x):
        if self.outermost:
            return self.model(x)
        return torch.cat([x, self.model(x)], 1)


class UnetGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, ngf=16, levels=3):
        super().__init__()
        block = UnetBlock(ngf * 4, ngf * 4)
        for _ in range(levels - 2):
            block = UnetBlock(ngf * 4, ngf * 4, block)
        block = UnetBlock(ngf, ngf * 4, block)
        self.model = UnetBlock(output_nc, ngf, block, in_channels=input_nc, outermost=True)

    def forward(self, x):
        return self.model(x)


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf=16, n_layers=3):
        super().__init__()
        layers = [nn.Conv2d(input_nc, ndf, 4, stride=2, padding=1), nn.LeakyReLU(0.2, True)]
        mult = 1
        for n in range(1, n_layers + 1):
            previous, mult = mult, min(2**n, 8)
            stride = 2 if n < n_layers else 1
            layers += [nn.Conv2d(ndf * previous, ndf * mult, 4, stride=stride, padding=1),
                       nn.BatchNorm2d(ndf * mult), nn.LeakyReLU(0.2, True)]  # fmt: skip
        layers.append(nn.Conv2d(ndf * mult, 1, 4, padding=1))
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


def define_G(input_nc, output_nc, ngf, netG, init_gain=0.02):
    if not netG.startswith("unet"):
        raise NotImplementedError(f"Generator model name [{netG}] is not recognized")
    return init_weights(UnetGenerator(input_nc, output_nc, ngf), init_gain)


def define_D(input_nc, ndf, netD, n_layers_D=3, init_gain=0.02):
    if netD not in ("basic", "n_layers"):
        raise NotImplementedError(f"Discriminator model name [{netD}] is not recognized")
    return init_weights(NLayerDiscriminator(input_nc, ndf, n_layers_D), init_gain)

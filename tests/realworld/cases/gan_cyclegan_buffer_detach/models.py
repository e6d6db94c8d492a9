# Source: https://github.com/eriklindernoren/PyTorch-GAN/blob/36d3c77e5ff20ebe0aeefd322326a134a279b93e/implementations/cyclegan/models.py
# Rebuilt in our own words: the CycleGAN generator (reflection-padded 7x7 stem, two strided
# downsampling convolutions, residual blocks, two upsampling stages, tanh) and the PatchGAN
# discriminator (four strided convolution blocks with leaky ReLU, a 1-channel map). Both
# stateless: each call builds a fresh graph. Fewer channels than the repository's.
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(features, features, 3), nn.InstanceNorm2d(features),
            nn.ReLU(inplace=True),
            nn.ReflectionPad2d(1), nn.Conv2d(features, features, 3), nn.InstanceNorm2d(features),
        )  # fmt: skip

    def forward(self, x):
        return x + self.block(x)


class GeneratorResNet(nn.Module):
    def __init__(self, channels=3, res_blocks=9, width=16):
        super().__init__()
        layers = [nn.ReflectionPad2d(3), nn.Conv2d(channels, width, 7), nn.InstanceNorm2d(width),
                  nn.ReLU(inplace=True)]  # fmt: skip
        for _ in range(2):
            layers += [nn.Conv2d(width, width * 2, 3, stride=2, padding=1),
                       nn.InstanceNorm2d(width * 2), nn.ReLU(inplace=True)]  # fmt: skip
            width *= 2
        layers += [ResidualBlock(width) for _ in range(res_blocks)]
        for _ in range(2):
            layers += [nn.Upsample(scale_factor=2), nn.Conv2d(width, width // 2, 3, padding=1),
                       nn.InstanceNorm2d(width // 2), nn.ReLU(inplace=True)]  # fmt: skip
            width //= 2
        layers += [nn.ReflectionPad2d(3), nn.Conv2d(width, channels, 7), nn.Tanh()]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


class Discriminator(nn.Module):
    def __init__(self, channels=3, width=16):
        super().__init__()

        def block(into, out, normalize=True):
            layers = [nn.Conv2d(into, out, 4, stride=2, padding=1)]
            if normalize:
                layers.append(nn.InstanceNorm2d(out))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(channels, width, normalize=False), *block(width, width * 2),
            *block(width * 2, width * 4), *block(width * 4, width * 8),
            nn.ZeroPad2d((1, 0, 1, 0)), nn.Conv2d(width * 8, 1, 4, padding=1),
        )  # fmt: skip

    def forward(self, img):
        return self.model(img)

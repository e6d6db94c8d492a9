# Source: https://github.com/aladdinpersson/Machine-Learning-Collection/blob/b0507b3fee1fbd8125777e66d831cb664ead4660/ML/Pytorch/GANs/4.%20WGAN-GP/model.py
# Rebuilt in our own words: the DCGAN-shaped critic (strided 4x4 convolutions, instance
# norm, leaky ReLU, a 1x1 score) and generator (transposed convolutions with batch norm
# and ReLU from a noise column to a tanh image), both stateless, and the DCGAN
# initialisation of their convolution and batch-norm weights.
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self, channels_img, features_d):
        super().__init__()

        def block(into, out):
            return nn.Sequential(nn.Conv2d(into, out, 4, 2, 1, bias=False),
                                 nn.InstanceNorm2d(out, affine=True), nn.LeakyReLU(0.2))  # fmt: skip

        self.disc = nn.Sequential(
            nn.Conv2d(channels_img, features_d, 4, 2, 1), nn.LeakyReLU(0.2),
            block(features_d, features_d * 2), block(features_d * 2, features_d * 4),
            block(features_d * 4, features_d * 8), nn.Conv2d(features_d * 8, 1, 4, 2, 0),
        )  # fmt: skip

    def forward(self, x):
        return self.disc(x)


class Generator(nn.Module):
    def __init__(self, channels_noise, channels_img, features_g):
        super().__init__()

        def block(into, out, stride, padding):
            return nn.Sequential(nn.ConvTranspose2d(into, out, 4, stride, padding, bias=False),
                                 nn.BatchNorm2d(out), nn.ReLU())  # fmt: skip

        self.net = nn.Sequential(
            block(channels_noise, features_g * 16, 1, 0), block(features_g * 16, features_g * 8, 2, 1),
            block(features_g * 8, features_g * 4, 2, 1), block(features_g * 4, features_g * 2, 2, 1),
            nn.ConvTranspose2d(features_g * 2, channels_img, 4, 2, 1), nn.Tanh(),
        )  # fmt: skip

    def forward(self, x):
        return self.net(x)


def initialize_weights(model):
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d, nn.BatchNorm2d)):
            nn.init.normal_(m.weight.data, 0.0, 0.02)

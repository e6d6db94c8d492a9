# Source: https://github.com/CuriousAI/mean-teacher/blob/546348ff863c998c26be4339021425df973b4a36/pytorch/mean_teacher/architectures.py
# Rebuilt in our own words: the registry of model builders the script picks by name
# (`architectures.__dict__[args.arch]`), reduced to the CIFAR one: a residual
# convolutional classifier (the repository's has 26 shake-shake layers and 96 channels;
# two plain residual blocks keep its shape: convolutions, batch norm, a linear head).
from torch import nn
from torch.nn import functional as F

from .utils import export


@export
def cifar_shakeshake26(pretrained=False, **kwargs):
    assert not pretrained
    return ResidualClassifier(channels=16, **kwargs)


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_a = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn_a = nn.BatchNorm2d(channels)
        self.conv_b = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn_b = nn.BatchNorm2d(channels)

    def forward(self, x):
        branch = self.bn_b(self.conv_b(F.relu(self.bn_a(self.conv_a(x)))))
        return F.relu(x + branch)


class ResidualClassifier(nn.Module):
    def __init__(self, channels=16, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.blocks = nn.Sequential(ResidualBlock(channels), ResidualBlock(channels))
        self.head = nn.Linear(channels, num_classes)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))

# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/blob/d86321702e6b35b61c963cacc4cba5b84448c767/source/model.py
# Rebuilt in our own words: the repository's tone-mapping U-Net, reduced to what the
# LightningModule relies on: a stateless module whose forward maps an image to an
# enhanced image and the per-pixel curve exponent it applied, `1 - (1 - x) ** r`,
# both carrying the graph of its convolutions. (The repository stacks MobileNet-style
# bottleneck blocks at two scales; fewer, plainer convolutions keep the same shape here.)
import torch
import torch.nn as nn
import torch.nn.functional as F


class CurveEstimator(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.first = nn.Conv2d(3, 3, 3, padding=1)
        self.down = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.up = nn.Conv2d(width, 3, 3, padding=1)
        self.last = nn.Conv2d(6, 3, 3, padding=1)

    def forward(self, x):
        features = F.leaky_relu(self.first(x))
        coarse = F.leaky_relu(self.down(features))
        coarse = F.interpolate(self.up(coarse), x.shape[-2:], mode="bilinear", align_corners=True)
        curve = torch.abs(self.last(torch.cat([features, coarse], dim=1)) + 1)
        return 1 - (1 - x) ** curve, curve

# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/blob/d86321702e6b35b61c963cacc4cba5b84448c767/source/iqa.py
# Rebuilt in our own words: the repository's no-reference quality score of an image:
# saturation times local contrast over the distance of the local mean from mid exposure,
# from average pooling over a reflected-padded window; it holds no state and no parameters.
import torch
import torch.nn as nn


class QualityScorer(nn.Module):
    def __init__(self, window=25, mid_level=0.5):
        super().__init__()
        self.mid_level = mid_level
        self.local_mean = nn.Sequential(nn.ReflectionPad2d(window // 2), nn.AvgPool2d(window, stride=1))

    def forward(self, images):
        eps = 1 / 255.0
        brightest = images.max(dim=1, keepdim=True)[0]
        darkest = images.min(dim=1, keepdim=True)[0]
        saturation = (brightest - darkest + eps) / (brightest + eps)
        mean = self.local_mean(images).mean(dim=1, keepdim=True)
        exposure = torch.abs(mean - self.mid_level) + eps
        contrast = self.local_mean(images * images).mean(dim=1, keepdim=True) - mean**2
        return torch.mean(saturation * contrast / exposure, dim=[1], keepdim=True)

# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/blob/d86321702e6b35b61c963cacc4cba5b84448c767/source/loss.py
# Rebuilt in our own words: the repository's total-variation loss on the log of the curve
# map: squared differences of neighbouring pixels, vertically and horizontally, averaged.
import torch


class SmoothnessLoss(torch.nn.Module):
    def forward(self, curve):
        logged = torch.log(curve + 1e-3)
        vertical = (logged[:, :, 1:, :] - logged[:, :, :-1, :]) ** 2
        horizontal = (logged[:, :, :, 1:] - logged[:, :, :, :-1]) ** 2
        return vertical.mean() + horizontal.mean()

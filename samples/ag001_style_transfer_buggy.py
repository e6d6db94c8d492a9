"""Neural style transfer optimised with L-BFGS, which calls its closure many times.

The content and style targets are computed once, before `optimizer.step(closure)`,
from a feature network whose parameters still require grad. The first closure call's
backward() frees the targets' graph, and L-BFGS's second call fails on it.
"""

import torch
from torch import nn

torch.manual_seed(0)

features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
content_image = torch.rand(1, 3, 16, 16)
style_image = torch.rand(1, 3, 16, 16)
image = content_image.clone().requires_grad_(True)
optimizer = torch.optim.LBFGS([image], max_iter=5)
STYLE_WEIGHT = 1e3


def gram(feature_map):
    channels = feature_map.shape[1]
    flat = feature_map.view(channels, -1)
    return flat @ flat.T / flat.shape[1]


content_target = features(content_image)
style_target = gram(features(style_image))


def closure():
    optimizer.zero_grad()
    current = features(image)
    loss = nn.functional.mse_loss(current, content_target)
    loss = loss + STYLE_WEIGHT * nn.functional.mse_loss(gram(current), style_target)
    loss.backward()  # expect: AG001
    return loss


for step in range(3):
    optimizer.step(closure)

# runnable
# A loss module added with add_module to an nn.Sequential built with its first layers
# (`nn.Sequential(features)`, as the neural-style tutorial starts from its normalization
# layer), inside a function that gets the container as a parameter. nn.Sequential.forward
# runs every module it holds, the added one last; the probe keeps as its target features
# computed with the layers' weights, and L-BFGS's second call of the closure
# back-propagates the probe's loss through that target's freed graph.
import torch
import torch.nn.functional as F
from torch import nn


class Probe(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target

    def forward(self, x):
        self.loss = F.mse_loss(x, self.target)
        return x


def fit(model, features, image):
    probe = Probe(features(torch.rand(1, 3, 8, 8)))
    model.add_module("probe", probe)
    lbfgs = torch.optim.LBFGS([image], max_iter=4)

    def closure():
        lbfgs.zero_grad()
        model(image)
        probe.loss.backward()  # expect: AG001
        return probe.loss

    lbfgs.step(closure)


torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
model = nn.Sequential(features)
fit(model, features, torch.rand(1, 3, 8, 8, requires_grad=True))

# runnable
# The neural-style tutorial's way of building a loss model: a loss module is added with
# add_module to an nn.Sequential after the feature layers, and keeps as its target the
# features of the content image computed with the layers' weights (no detach). Calling
# the Sequential runs the added module's forward, which sets `probe.loss` from that
# target; L-BFGS calls the closure again, whose backward reaches the target's graph, freed
# by the first call.
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


torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
content = torch.rand(1, 3, 8, 8)
probe = Probe(features(content))
model = nn.Sequential()
model.add_module("features", features)
model.add_module("probe", probe)
image = torch.rand(1, 3, 8, 8, requires_grad=True)
lbfgs = torch.optim.LBFGS([image], max_iter=4)


def closure():
    lbfgs.zero_grad()
    model(image)
    probe.loss.backward()  # expect: AG001
    return probe.loss


lbfgs.step(closure)

# runnable
# Twin of added_module_after_built_parts_target_kept.py: the probe's target is detached,
# as the neural-style tutorial writes it, so each closure call builds and frees a graph of
# its own.
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
    probe = Probe(features(torch.rand(1, 3, 8, 8)).detach())
    model.add_module("probe", probe)
    lbfgs = torch.optim.LBFGS([image], max_iter=4)

    def closure():
        lbfgs.zero_grad()
        model(image)
        probe.loss.backward()
        return probe.loss

    lbfgs.step(closure)


torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
model = nn.Sequential(features)
fit(model, features, torch.rand(1, 3, 8, 8, requires_grad=True))

# runnable
# The twin of added_module_target_kept_with_graph.py, as the tutorial writes it: the
# target is detached, so each closure call back-propagates only its own graph.
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
probe = Probe(features(content).detach())
model = nn.Sequential()
model.add_module("features", features)
model.add_module("probe", probe)
image = torch.rand(1, 3, 8, 8, requires_grad=True)
lbfgs = torch.optim.LBFGS([image], max_iter=4)


def closure():
    lbfgs.zero_grad()
    model(image)
    probe.loss.backward()
    return probe.loss


lbfgs.step(closure)

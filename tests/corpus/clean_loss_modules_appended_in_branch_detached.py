# runnable
# The twin of loss_modules_appended_in_branch.py, as the tutorial writes it: each target
# is detached, so every closure call back-propagates only its own graph.
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
layers = [nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1)]
content = torch.rand(1, 3, 8, 8)
model = nn.Sequential()
probes = []
for index, layer in enumerate(layers):
    model.add_module(f"layer{index}", layer)
    if isinstance(layer, nn.Conv2d):
        probe = Probe(model(content).detach())
        model.add_module(f"probe{index}", probe)
        probes.append(probe)

image = torch.rand(1, 3, 8, 8, requires_grad=True)
lbfgs = torch.optim.LBFGS([image], max_iter=4)


def closure():
    lbfgs.zero_grad()
    model(image)
    total = sum(p.loss for p in probes)
    total.backward()
    return total


lbfgs.step(closure)

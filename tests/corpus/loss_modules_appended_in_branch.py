# runnable
# The neural-style tutorial's loop (a gist of it): layers are added to an nn.Sequential
# one by one, and after each convolution a loss module is spliced in and appended to a
# list, inside an `if`. Each keeps as its target the features computed so far, with the
# convolutions' graph. The closure sums the modules' losses over the list; L-BFGS calls it
# again, and its backward reaches the targets' graphs the first call freed.
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
        probe = Probe(model(content))
        model.add_module(f"probe{index}", probe)
        probes.append(probe)

image = torch.rand(1, 3, 8, 8, requires_grad=True)
lbfgs = torch.optim.LBFGS([image], max_iter=4)


def closure():
    lbfgs.zero_grad()
    model(image)
    total = sum(p.loss for p in probes)
    total.backward()  # expect: AG001
    return total


lbfgs.step(closure)

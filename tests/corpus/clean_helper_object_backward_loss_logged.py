# runnable
# A task's step gets its criterion from a registry, so nothing here says what it is; the
# criterion back-propagates its loss itself and returns it, and the step only reads the
# returned loss for its log.
import torch
from torch import nn

torch.manual_seed(4)
CRITERIA = {}


def register(name):
    def add(cls):
        CRITERIA[name] = cls
        return cls

    return add


@register("twin")
class TwinCriterion:
    def __init__(self, weight):
        self.weight = weight

    def twin_loss(self, net, batch, target, opt):
        doubled = torch.cat([batch, batch], 0)
        first, second = net(doubled).chunk(2, 0)
        loss = nn.functional.mse_loss(first, target) + self.weight * (first - second).pow(2).mean()
        loss.backward()
        return loss, batch.size(0)


def train_step(batch, target, net, criterion, opt):
    opt.zero_grad()
    loss, size = criterion.twin_loss(net, batch, target, opt)
    opt.step()
    return loss.item() / size


net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
criterion = CRITERIA["twin"](0.5)
for _ in range(3):
    train_step(torch.randn(6, 4), torch.randn(6, 1), net, criterion, opt)

# runnable
# Twin of layer_state_in_module_list_root_model.py: the layer keeps its running summary
# detached, so each batch's graph ends with the batch; the same nn.ModuleList of the
# file's layers, and the same training function found by name at run time
# (checked on its own, its `net` taken for the one top-level module class whose forward
# takes `net(inputs, target)`). Runs clean.
import sys

import torch
from torch import nn

torch.manual_seed(3)


class RunningSummary(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.store = None

    def forward(self, x):
        key = torch.tanh(self.proj(x))
        if self.store is None:
            self.store = key.mean(0).detach()
        else:
            self.store = (self.store + key.mean(0)).detach()
        return x + self.store


class SummaryStack(nn.Module):
    def __init__(self, width=6, depth=2):
        super().__init__()
        self.parts = nn.ModuleList([RunningSummary(width) for _ in range(depth)])
        self.head = nn.Linear(width, 1)

    def forward(self, inputs, target):
        for part in self.parts:
            inputs = part(inputs)
        return ((self.head(inputs) - target) ** 2).mean()


def fit(net, batches, opt):
    for inputs, target in batches:
        loss = net(inputs, target)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    stack = SummaryStack()
    data = [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(3)]
    entry = vars(sys.modules[__name__])["fit"]  # found by name at run time, as a task runner does
    entry(stack, data, torch.optim.SGD(stack.parameters(), lr=0.1))

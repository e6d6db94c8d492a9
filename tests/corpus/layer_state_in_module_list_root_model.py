# runnable
# A layer of the file keeps a running summary of its inputs in `self.store` and adds to
# it on every call; the model holds two of them in an nn.ModuleList built from a list
# comprehension. The training function is found by name at run time (as a task runner
# finds it), so it is checked on its own: its `net` is the file's one top-level module
# class whose forward takes `net(inputs, target)`. The second batch's backward goes back through
# the first batch's summary, whose graph the first backward freed.
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
            self.store = key.mean(0)
        else:
            self.store = self.store + key.mean(0)
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
        loss.backward()  # expect: AG001
        opt.step()


if __name__ == "__main__":
    stack = SummaryStack()
    data = [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(3)]
    entry = vars(sys.modules[__name__])["fit"]  # found by name at run time, as a task runner does
    entry(stack, data, torch.optim.SGD(stack.parameters(), lr=0.1))

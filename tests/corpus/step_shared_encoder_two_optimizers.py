# runnable
"""A training step a trainer calls once per batch: one encoding scored by two heads, each
loss back-propagated and stepped in turn. The step gets its modules from the constructor
and is handed to the trainer as a bound method, so nothing in the file calls it by name:
only its use says `self.encoder` is a module (its result reaches a backward in a method
that clears and steps an optimizer, which runs once per batch). The first backward frees
the encoder's graph, which the second loss goes through again."""

import torch
from torch import nn


class TwoHeadStep:
    def __init__(self, encoder, head_a, head_b, opt_a, opt_b):
        self.encoder = encoder
        self.head_a, self.head_b = head_a, head_b
        self.opt_a, self.opt_b = opt_a, opt_b

    def update(self, inputs, target):
        features = self.encoder(inputs)
        loss_a = (self.head_a(features) - target).pow(2).mean()
        loss_b = (self.head_b(features) - target).pow(2).mean()
        self.opt_a.zero_grad()
        loss_a.backward()
        self.opt_a.step()
        self.opt_b.zero_grad()
        loss_b.backward()  # expect: AG002
        self.opt_b.step()
        return loss_a.item(), loss_b.item()


def fit(step, batches):
    for inputs, target in batches:
        step(inputs, target)


torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
left, right = nn.Linear(8, 1), nn.Linear(8, 1)
updater = TwoHeadStep(
    trunk,
    left,
    right,
    torch.optim.SGD([*trunk.parameters(), *left.parameters()], lr=0.1),
    torch.optim.SGD(right.parameters(), lr=0.1),
)
fit(updater.update, [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(3)])

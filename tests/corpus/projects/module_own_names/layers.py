# A project module whose classes build each other: `Tracker.__init__` makes a `Memory`,
# which keeps its last output on itself between calls. The training scripts import only
# `Tracker`: Python finds `Memory` in this module, whatever the importer imported.
import torch
from torch import nn


class Memory(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Linear(width, width)
        self.kept = torch.zeros(1, width)

    def forward(self, x):
        self.kept = torch.tanh(self.mix(x) + self.kept)
        return self.kept

    def forget(self):
        self.kept = self.kept.detach()


class Tracker(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.memory = Memory(width)
        self.readout = nn.Linear(width, 1)

    def forward(self, x):
        return self.readout(self.memory(x)).sum()

    def forget(self):
        self.memory.forget()

# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/policy/base.py
# Rebuilt in our own words: the abstract policy: an nn.Module whose `forward(batch)`
# returns a Batch with the action and the hidden state, whose `learn(batch)` returns a
# dict of losses, and whose `process_fn` prepares a sampled batch (unchanged here).
from abc import ABC, abstractmethod

from torch import nn


class BasePolicy(ABC, nn.Module):
    def __init__(self, **kwargs):
        super().__init__()

    def process_fn(self, batch, buffer, indice):
        return batch

    @abstractmethod
    def forward(self, batch, state=None, **kwargs):
        pass

    @abstractmethod
    def learn(self, batch, **kwargs):
        pass

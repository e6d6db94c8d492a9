# Source: https://github.com/eriklindernoren/PyTorch-GAN/blob/36d3c77e5ff20ebe0aeefd322326a134a279b93e/implementations/cyclegan/utils.py
# Rebuilt in our own words: the history buffer of generated images (up to 50; once full,
# each new image either replaces a random stored one, which is returned instead, or passes
# through), which reads its input through `.data` and returns `Variable(torch.cat(...))`:
# what it hands back has no history. `weights_init_normal` is the models file's.
import random

import torch
from torch.autograd import Variable


class ReplayBuffer:
    def __init__(self, max_size=50):
        assert max_size > 0
        self.max_size = max_size
        self.data = []

    def push_and_pop(self, data):
        handed_back = []
        for element in data.data:
            element = torch.unsqueeze(element, 0)
            if len(self.data) < self.max_size:
                self.data.append(element)
                handed_back.append(element)
            elif random.uniform(0, 1) > 0.5:
                slot = random.randint(0, self.max_size - 1)
                handed_back.append(self.data[slot].clone())
                self.data[slot] = element
            else:
                handed_back.append(element)
        return Variable(torch.cat(handed_back))


def weights_init_normal(m):
    kind = m.__class__.__name__
    if kind.find("Conv") != -1:
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
        if getattr(m, "bias", None) is not None:
            torch.nn.init.constant_(m.bias.data, 0.0)
    elif kind.find("BatchNorm2d") != -1:
        torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)

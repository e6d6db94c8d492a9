# Source: https://github.com/mohammadbashiri/fitgabor/pull/1
# Rebuilt in our own words: a parametric Gabor patch is tuned with LBFGS to maximise a frozen model neuron's response, the patch being regenerated and renormalised inside the closure on every evaluation.
# Mechanism: forward inside closure
import math

import torch
from torch import nn


class GaborPatch(nn.Module):
    def __init__(self, size=12):
        super().__init__()
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, size), torch.linspace(-1, 1, size), indexing="ij")
        self.register_buffer("xs", xs)
        self.register_buffer("ys", ys)
        self.theta = nn.Parameter(torch.tensor(0.3))
        self.freq = nn.Parameter(torch.tensor(2.0))
        self.phase = nn.Parameter(torch.tensor(0.0))
        self.log_sigma = nn.Parameter(torch.tensor(-0.5))

    def forward(self):
        rot = self.xs * torch.cos(self.theta) + self.ys * torch.sin(self.theta)
        envelope = torch.exp(-(self.xs ** 2 + self.ys ** 2) / (2 * torch.exp(self.log_sigma) ** 2))
        carrier = torch.cos(2 * math.pi * self.freq * rot + self.phase)
        return (envelope * carrier)[None, None]


def fit_patch(neuron, generator, steps=5, target_std=None):
    optimizer = torch.optim.LBFGS(generator.parameters(), lr=0.1, max_iter=4)
    history = []
    for step in range(steps):

        def closure():
            optimizer.zero_grad()
            patch = generator()
            if target_std is not None:
                patch = target_std * patch / patch.std()
            loss = -neuron(patch).mean()
            loss.backward()
            return loss

        value = optimizer.step(closure)
        history.append(value.item())
    return history


neuron = nn.Sequential(nn.Conv2d(1, 2, 5), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 8 * 8, 1))
for p in neuron.parameters():
    p.requires_grad_(False)

gabor = GaborPatch()
curve = fit_patch(neuron, gabor, steps=3, target_std=0.5)

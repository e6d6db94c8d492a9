"""What a function draws with `next()` is data, as what it iterates with `for` is.

StyleMapGAN's train.py (rebuilt in tests/realworld/cases/gan_stylemap_ddp_two_backwards.py)
passes `sample_data(loader)`, a generator defined in another file, to `train`, which
takes each batch with `next(loader)`. The batch reaches the backward as the model's
input; that says nothing of what `sample_data` is: taking it for a module made its result
a graph built once before the loop, and the loop an AG001 it does not have.
"""

from __future__ import annotations

import subprocess
import sys

from autograd_lint.analysis import analyze

TRAIN = """import torch
from torch import nn


def train(net, batches, opt, steps):
    for _ in range(steps):
        inputs, targets = next(batches)
        loss = nn.functional.mse_loss(net(inputs), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()


torch.manual_seed(0)
net = nn.Linear(3, 1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]
train(net, sample_data(data), torch.optim.SGD(net.parameters(), lr=0.1), steps=4)
"""
# The generator of the thread's file, which the snippet does not show.
SAMPLE_DATA = """
def sample_data(loader):
    while True:
        yield from loader
"""


def test_a_batch_drawn_with_next_from_an_unseen_callable_is_data():
    assert [f.code for f in analyze(TRAIN, "train.py")] == []


def test_the_completed_program_trains_without_error():
    program = TRAIN.replace("\n\ndef train(", SAMPLE_DATA + "\n\ndef train(", 1)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()

"""Notebook-style training script: the RNN state lives in a module-level global.

Fixed: `train_step` detaches the global state before running the RNN from it, so
each call back-propagates through its own batch only.
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES, HIDDEN, BATCH, STEPS = 3, 12, 2, 6

rnn = nn.RNN(FEATURES, HIDDEN)
head = nn.Linear(HIDDEN, 1)
optimizer = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-3)
hidden = torch.zeros(1, BATCH, HIDDEN)


def train_step(x, y):
    global hidden
    hidden = hidden.detach()
    out, hidden = rnn(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


for _ in range(4):
    train_step(torch.randn(STEPS, BATCH, FEATURES), torch.randn(STEPS, BATCH, 1))

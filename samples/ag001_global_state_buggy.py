"""Notebook-style training script: the RNN state lives in a module-level global.

`train_step` declares `global hidden`, runs the RNN from it and stores the new state
back. The global survives between calls with the graph of the call that made it, so
the second call's backward() runs into the first call's freed graph.
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
    out, hidden = rnn(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    return loss.item()


for _ in range(4):
    train_step(torch.randn(STEPS, BATCH, FEATURES), torch.randn(STEPS, BATCH, 1))

"""Two recurrent models that keep their state between calls (a streaming setting)."""

import torch
from torch import nn


class StatefulRNN(nn.Module):
    """Keeps the RNN state in `self.hidden` and starts the next call from it."""

    def __init__(self, features, hidden_size):
        super().__init__()
        self.rnn = nn.GRU(features, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, 1)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        return self.head(out[:, -1])


class TruncatedRNN(StatefulRNN):
    """The same model, cutting the state's history where it enters the next call."""

    def forward(self, x):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()
        out, self.hidden = self.rnn(x, self.hidden)
        return self.head(out[:, -1])


def make_batches(count, batch=4, steps=6, features=3):
    torch.manual_seed(0)
    return [(torch.randn(batch, steps, features), torch.randn(batch, 1)) for _ in range(count)]

"""Sequence tagger trained by a `train_one_epoch` helper that keeps the RNN state.

Fixed: the helper detaches the state at the top of its loop, so every batch (and
every epoch, which starts from the returned state) back-propagates through itself only.
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES, HIDDEN, TAGS, STEPS, BATCH = 8, 32, 5, 10, 4


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(FEATURES, HIDDEN, batch_first=True)
        self.classify = nn.Linear(HIDDEN, TAGS)

    def forward(self, x, hidden):
        out, hidden = self.rnn(x, hidden)
        return self.classify(out), hidden


def make_loader(num_batches):
    return [
        (torch.randn(BATCH, STEPS, FEATURES), torch.randint(0, TAGS, (BATCH, STEPS)))
        for _ in range(num_batches)
    ]


def train_one_epoch(model, loader, optimizer, hidden):
    model.train()
    total = 0.0
    for x, tags in loader:
        hidden = hidden.detach()
        scores, hidden = model(x, hidden)
        loss = nn.functional.cross_entropy(scores.reshape(-1, TAGS), tags.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader), hidden


model = Tagger()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = make_loader(4)

hidden = torch.zeros(1, BATCH, HIDDEN)
for epoch in range(3):
    mean_loss, hidden = train_one_epoch(model, loader, optimizer, hidden)
    print(f"epoch {epoch}: {mean_loss:.4f}")

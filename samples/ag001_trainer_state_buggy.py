"""A small `Trainer` class that keeps the recurrent state between its steps.

`train_step` starts from `self.hidden` and stores the new state there for the next
call. The stored state still belongs to this step's graph, which this step's
backward() frees, so the next call's backward() fails on it.
"""

import torch
from torch import nn

torch.manual_seed(0)

FEATURES, HIDDEN, BATCH, STEPS = 4, 20, 6, 12


class Trainer:
    def __init__(self, model, head, lr=1e-3):
        self.model = model
        self.head = head
        self.optimizer = torch.optim.Adam([*model.parameters(), *head.parameters()], lr=lr)
        self.hidden = torch.zeros(1, BATCH, HIDDEN)

    def train_step(self, x, y):
        out, self.hidden = self.model(x, self.hidden)
        loss = nn.functional.mse_loss(self.head(out), y)
        self.optimizer.zero_grad()
        loss.backward()  # expect: AG001
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.train_step(x, y) for x, y in batches]


batches = [(torch.randn(BATCH, STEPS, FEATURES), torch.randn(BATCH, STEPS, 1)) for _ in range(4)]
trainer = Trainer(nn.GRU(FEATURES, HIDDEN, batch_first=True), nn.Linear(HIDDEN, 1))
print(trainer.fit(batches))

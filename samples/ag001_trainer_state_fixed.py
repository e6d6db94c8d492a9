"""A small `Trainer` class that keeps the recurrent state between its steps.

Fixed: `train_step` stores a detached copy of the new state, so the next call
starts from its value alone.
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
        out, hidden = self.model(x, self.hidden)
        self.hidden = hidden.detach()
        loss = nn.functional.mse_loss(self.head(out), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        return [self.train_step(x, y) for x, y in batches]


batches = [(torch.randn(BATCH, STEPS, FEATURES), torch.randn(BATCH, STEPS, 1)) for _ in range(4)]
trainer = Trainer(nn.GRU(FEATURES, HIDDEN, batch_first=True), nn.Linear(HIDDEN, 1))
print(trainer.fit(batches))

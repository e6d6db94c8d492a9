# runnable
# A small in-house Trainer: fit() loops over epochs, _train_step() does one batch.
import torch
from torch import nn


class Trainer:
    def __init__(self, model, optimizer, loss_fn, log_every=2):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.log_every = log_every
        self.history = []
        self.global_step = 0

    def _train_step(self, batch):
        inputs, targets = batch
        self.optimizer.zero_grad()
        outputs = self.model(inputs)
        loss = self.loss_fn(outputs, targets)
        loss.backward()
        self.optimizer.step()
        self.global_step += 1
        return loss.detach()

    def fit(self, loader, epochs):
        self.model.train()
        for epoch in range(epochs):
            epoch_loss = 0.0
            for batch in loader:
                epoch_loss += self._train_step(batch).item()
            self.history.append(epoch_loss / len(loader))
        return self.history


torch.manual_seed(36)
data = [(torch.randn(4, 10), torch.randn(4, 2)) for _ in range(5)]
net = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2))
trainer = Trainer(net, torch.optim.Adam(net.parameters()), nn.SmoothL1Loss())
print(trainer.fit(data, epochs=3))

# Source: https://github.com/mosaicml/composer/pull/1240
# Rebuilt in our own words: a ComposerModel whose loss() returns a tuple (classification loss, auxiliary reconstruction loss) computed from one forward pass; the composer Trainer of that time ran backward on each element of the tuple in turn.
# Mechanism: framework backpropagates returned loss
#
# Stand-in: composer is not installed here; ComposerModel/Trainer below keep what the
# trainer did per microbatch before that pull request: outputs = model(batch),
# loss = model.loss(outputs, batch), then `for loss in ensure_tuple(loss): loss.backward()`,
# then the optimizer step.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def ensure_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class ComposerModel(nn.Module):
    pass


class Trainer:
    def __init__(self, model, train_dataloader, optimizers, max_duration="1ep"):
        self.model = model
        self.train_dataloader = train_dataloader
        self.optimizer = optimizers
        self.epochs = int(max_duration.rstrip("ep"))

    def fit(self):
        for _ in range(self.epochs):
            for batch in self.train_dataloader:
                self.optimizer.zero_grad()
                outputs = self.model(batch)
                loss = self.model.loss(outputs, batch)
                for part in ensure_tuple(loss):
                    part.backward()  # realworld: fails
                self.optimizer.step()


class ClassifyAndReconstruct(ComposerModel):
    def __init__(self, in_dim=64, hidden=16, n_classes=10, aux_weight=0.1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, n_classes)
        self.decoder = nn.Linear(hidden, in_dim)
        self.aux_weight = aux_weight

    def forward(self, batch):
        x, _ = batch
        x = x.flatten(1)
        code = self.encoder(x)
        return self.classifier(code), self.decoder(code)

    def loss(self, outputs, batch):
        logits, recon = outputs
        x, y = batch
        ce = F.cross_entropy(logits, y)
        aux = self.aux_weight * F.mse_loss(recon, x.flatten(1))
        return ce, aux


def main(train_dataloader):
    model = ClassifyAndReconstruct()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    trainer = Trainer(
        model=model,
        train_dataloader=train_dataloader,
        optimizers=optimizer,
        max_duration="1ep",
    )
    trainer.fit()


main([(torch.rand(4, 1, 8, 8), torch.randint(0, 10, (4,))) for _ in range(3)])

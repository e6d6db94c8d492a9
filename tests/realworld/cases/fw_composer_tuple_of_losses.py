# Source: https://github.com/mosaicml/composer/pull/1240
# Rebuilt in our own words: a ComposerModel whose loss() returns a tuple (classification loss, auxiliary reconstruction loss) computed from one forward pass; the composer Trainer of that time ran backward on each element of the tuple in turn.
# Mechanism: framework backpropagates returned loss
import torch
import torch.nn as nn
import torch.nn.functional as F
from composer import Trainer
from composer.models import ComposerModel


class ClassifyAndReconstruct(ComposerModel):
    def __init__(self, in_dim=784, hidden=128, n_classes=10, aux_weight=0.1):
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

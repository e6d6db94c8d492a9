# A ComposerModel whose loss() returns two losses over one forward pass: composer's Trainer
# (up to 0.8.0) back-propagates each element of the tuple in turn, so the second goes
# through the trunk's graph the first freed (composer is not installed: not run).
import torch
from composer import Trainer
from composer.models import ComposerModel


class TwoHeads(ComposerModel):
    def __init__(self):
        super().__init__()
        self.trunk = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh())
        self.first = torch.nn.Linear(8, 2)
        self.second = torch.nn.Linear(8, 1)

    def forward(self, batch):
        x, _ = batch
        features = self.trunk(x)
        return self.first(features), self.second(features)

    def loss(self, outputs, batch):
        scores, value = outputs
        _, y = batch
        return torch.nn.functional.cross_entropy(scores, y), value.pow(2).mean()  # expect: AG002


def main(loader):
    model = TwoHeads()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Trainer(model=model, train_dataloader=loader, optimizers=opt, max_duration="1ep").fit()

# Source: https://github.com/davda54/sam/issues/45
# Rebuilt in our own words: a classifier is trained with the two-step SAM optimizer, computing the network output once per batch and reusing it for the loss of the second (perturbed-weights) pass.
# Mechanism: shared output two backwards
# The SAM class below is a small stand-in for the repository's sam.py (first_step climbs to
# w + e(w) in place, second_step restores w and applies the base optimizer).
import torch
from torch import nn

torch.manual_seed(0)


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        norm = torch.norm(
            torch.stack(
                [
                    p.grad.norm()
                    for g in self.param_groups
                    for p in g["params"]
                    if p.grad is not None
                ]
            )
        )
        for group in self.param_groups:
            scale = group["rho"] / (norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


class Meter:
    def __init__(self):
        self.rows = []

    def update(self, loss, acc, n):
        self.rows.append((loss, acc, n))


def train(loader, model, criterion, optimizer, epoch, meter):
    model.train()
    for step, (images, labels) in enumerate(loader):
        logits = model(images)

        loss = criterion(logits, labels)
        loss.backward()
        optimizer.first_step(zero_grad=True)

        criterion(logits, labels).backward()  # realworld: fails
        optimizer.second_step(zero_grad=True)

        top1 = (logits.argmax(dim=1) == labels).float().mean()
        meter.update(loss.item(), top1.item(), images.size(0))


model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = SAM(model.parameters(), torch.optim.SGD, rho=0.05, lr=0.05, momentum=0.9)
loader = [(torch.randn(8, 3, 8, 8), torch.randint(0, 4, (8,))) for _ in range(3)]
train(loader, model, nn.CrossEntropyLoss(), optimizer, 0, Meter())

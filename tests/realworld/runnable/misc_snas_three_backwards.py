# Source: https://github.com/SNAS-Series/SNAS-Series/issues/10
# Rebuilt in our own words: a differentiable architecture search trainer backpropagates a resource penalty and the classification loss separately to record how each moves the architecture logits, then backpropagates their sum for the real update
# Mechanism: retain_graph on all but the last pass
# The repository's search network and utilities are replaced by a tiny two-candidate cell with
# Gumbel-softmax architecture weights and a small averaging meter.
import logging
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AverageMeter:
    def __init__(self):
        self.sum, self.n = 0.0, 0

    def update(self, value, n):
        self.sum += value * n
        self.n += n

    @property
    def avg(self):
        return self.sum / max(self.n, 1)


class TinySearchNet(nn.Module):
    def __init__(self, d_in=8, n_classes=3):
        super().__init__()
        self.ops = nn.ModuleList(
            [nn.Linear(d_in, 12), nn.Sequential(nn.Linear(d_in, 12), nn.Tanh())]
        )
        self.head = nn.Linear(12, n_classes)
        self.cell_alpha = nn.Parameter(torch.zeros(2))
        self.register_buffer("op_cost", torch.tensor([1.0, 3.0]))
        self.resource_lambda = 0.05

    def weight_parameters(self):
        return [p for n, p in self.named_parameters() if n != "cell_alpha"]

    def arch_parameters(self):
        return [self.cell_alpha]

    def forward(self, x, temperature):
        w = F.gumbel_softmax(self.cell_alpha, tau=temperature)
        h = sum(wi * op(x) for wi, op in zip(w, self.ops))
        return self.head(h), (w * self.op_cost).sum()


class SearchTrainer:
    def __init__(self, model, train_queue, args):
        self.model = model
        self.train_queue = train_queue
        self.args = args
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.weight_parameters(), lr=args.lr, momentum=0.9)
        self.arch_optimizer = torch.optim.Adam(model.arch_parameters(), lr=args.arch_lr)

    def train_epoch(self, epoch):
        self.model.train()
        penalty_grad = torch.zeros_like(self.model.cell_alpha)
        task_grad = torch.zeros_like(self.model.cell_alpha)
        total_grad = torch.zeros_like(self.model.cell_alpha)
        meter = AverageMeter()
        count = 0
        for step, (images, target) in enumerate(self.train_queue):
            logits, cost = self.model(images, temperature=self.args.temperature)
            error_loss = self.criterion(logits, target)
            resource_loss = self.model.resource_lambda * cost
            loss = resource_loss.clone() + error_loss.clone()
            count += 1

            self.optimizer.zero_grad()
            self.arch_optimizer.zero_grad()
            resource_loss.backward(retain_graph=True)
            penalty_grad += self.model.cell_alpha.grad

            self.optimizer.zero_grad()
            self.arch_optimizer.zero_grad()
            error_loss.backward(retain_graph=True)
            task_grad += self.model.cell_alpha.grad

            self.optimizer.zero_grad()
            self.arch_optimizer.zero_grad()
            loss.backward()
            total_grad += self.model.cell_alpha.grad

            nn.utils.clip_grad_norm_(self.model.weight_parameters(), self.args.grad_clip)
            self.optimizer.step()
            self.arch_optimizer.step()
            meter.update(error_loss.item(), images.size(0))

        logging.info("penalty grad %s", penalty_grad / count)
        logging.info("task grad %s", task_grad / count)
        logging.info("total grad %s", total_grad / count)
        return meter.avg


args = SimpleNamespace(lr=0.05, arch_lr=3e-3, temperature=1.0, grad_clip=5.0)
queue = [(torch.randn(5, 8), torch.randint(0, 3, (5,))) for _ in range(4)]
trainer = SearchTrainer(TinySearchNet(), queue, args)
for epoch in range(2):
    print(epoch, trainer.train_epoch(epoch))

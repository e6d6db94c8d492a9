# Source: https://github.com/SNAS-Series/SNAS-Series/issues/10
# Rebuilt in our own words: a differentiable architecture search trainer backpropagates a resource penalty and the classification loss separately to record how each moves the architecture logits, then backpropagates their sum for the real update
# Mechanism: retain_graph on all but the last pass
import logging

import torch
import torch.nn as nn

import utils


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
        meter = utils.AverageMeter()
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

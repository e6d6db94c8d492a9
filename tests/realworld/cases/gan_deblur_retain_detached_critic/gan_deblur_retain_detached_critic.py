# Source: https://github.com/VITA-Group/DeblurGANv2/issues/19
# Rebuilt in our own words: DeblurGAN-v2 style trainer; per batch the generator output is handed to an adversarial-trainer object for a critic update (backward with retain_graph=True), then the same output is used for the content loss and the adversarial generator loss.
# Mechanism: detach inside helper
import torch
import torch.nn as nn
import torch.optim as optim
from torch import autograd

from models.networks import get_nets


class WGANGPCriterion:
    def __init__(self, gp_weight=10.0):
        self.gp_weight = gp_weight

    def get_g_loss(self, net, fake, real):
        self.score_fake = net(fake)
        return -self.score_fake.mean()

    def penalty(self, net, real_data, fake_data):
        alpha = torch.rand(real_data.size(0), 1, 1, 1).expand_as(real_data)
        mixed = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
        scores = net(mixed)
        grads = autograd.grad(outputs=scores, inputs=mixed, grad_outputs=torch.ones_like(scores),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
        return ((grads.view(grads.size(0), -1).norm(2, dim=1) - 1) ** 2).mean() * self.gp_weight

    def __call__(self, net, fake, real):
        score_fake = net(fake.detach()).mean()
        score_real = net(real).mean()
        return score_fake - score_real + self.penalty(net, real.data, fake.data)


class SingleCriticTrainer:
    def __init__(self, net_d, criterion):
        self.net_d = net_d
        self.criterion = criterion

    def loss_d(self, pred, gt):
        return self.criterion(self.net_d, pred, gt)

    def loss_g(self, pred, gt):
        return self.criterion.get_g_loss(self.net_d, pred, gt)

    def get_params(self):
        return self.net_d.parameters()


class Trainer:
    def __init__(self, config, train_loader):
        self.config = config
        self.train_dataset = train_loader
        self.adv_lambda = config['adv_lambda']

    def _init_params(self):
        self.netG, net_d = get_nets(self.config)
        self.criterionG = nn.L1Loss()
        self.adv_trainer = SingleCriticTrainer(net_d, WGANGPCriterion())
        self.optimizer_G = optim.Adam(self.netG.parameters(), lr=self.config['lr'])
        self.optimizer_D = optim.Adam(self.adv_trainer.get_params(), lr=self.config['lr'])

    def train(self):
        self._init_params()
        for epoch in range(self.config['num_epochs']):
            self._run_epoch(epoch)

    def _run_epoch(self, epoch):
        for inputs, targets in self.train_dataset:
            outputs = self.netG(inputs)
            loss_D = self._update_d(outputs, targets)
            self.optimizer_G.zero_grad()
            loss_content = self.criterionG(outputs, targets)
            loss_adv = self.adv_trainer.loss_g(outputs, targets)
            loss_G = loss_content + self.adv_lambda * loss_adv
            loss_G.backward()
            self.optimizer_G.step()

    def _update_d(self, outputs, targets):
        self.optimizer_D.zero_grad()
        loss_D = self.adv_lambda * self.adv_trainer.loss_d(outputs, targets)
        loss_D.backward(retain_graph=True)
        self.optimizer_D.step()
        return loss_D.item()

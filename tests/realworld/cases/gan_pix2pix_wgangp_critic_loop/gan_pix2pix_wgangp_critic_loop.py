# Source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439
# Rebuilt in our own words: pix2pix model class turned into WGAN-GP; optimize_parameters runs forward() once, then calls backward_D() several times in a critic loop, and backward_D adds a gradient penalty computed on the concatenated fake pair.
# Mechanism: state in self attribute across calls
import torch
import torch.nn as nn

from . import networks
from .base_model import BaseModel


def interpolated_penalty(critic, real_pair, fake_pair, device, lambda_gp=10.0):
    alpha = torch.rand(real_pair.shape[0], 1, 1, 1, device=device)
    mixed = alpha * real_pair + (1 - alpha) * fake_pair
    mixed.requires_grad_(True)
    scores = critic(mixed)
    grads = torch.autograd.grad(outputs=scores, inputs=mixed,
                                grad_outputs=torch.ones_like(scores),
                                create_graph=True, retain_graph=True, only_inputs=True)[0]
    grads = grads.view(real_pair.size(0), -1)
    penalty = ((grads.norm(2, dim=1) - 1.0) ** 2).mean() * lambda_gp
    return penalty, grads


class Pix2PixWGANModel(BaseModel):
    def __init__(self, opt):
        BaseModel.__init__(self, opt)
        self.netG = networks.define_G(opt.input_nc, opt.output_nc, opt.ngf, opt.netG)
        self.netD = networks.define_D(opt.input_nc + opt.output_nc, opt.ndf, opt.netD)
        self.criterionL1 = nn.L1Loss()
        self.n_critic = opt.n_critic
        self.gp_weight = opt.lambda_gp
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.9))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.9))

    def set_input(self, batch):
        self.real_A = batch['A'].to(self.device)
        self.real_B = batch['B'].to(self.device)

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = pred_fake.mean()
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = -pred_real.mean()
        self.loss_gp, _ = interpolated_penalty(self.netD, real_AB, fake_AB, self.device,
                                               lambda_gp=self.gp_weight)
        self.loss_D = self.loss_D_fake + self.loss_D_real + self.loss_gp
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        self.loss_G_GAN = -self.netD(fake_AB).mean()
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * 100.0
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        for _ in range(self.n_critic):
            self.set_requires_grad(self.netD, True)
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

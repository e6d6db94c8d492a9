# Source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439
# Rebuilt in our own words: pix2pix model class turned into WGAN-GP; optimize_parameters runs forward() once, then calls backward_D() several times in a critic loop, and backward_D adds a gradient penalty computed on the concatenated fake pair.
# Mechanism: state in self attribute across calls
# Runnable completion: tiny conv nets stand in for networks.define_G/define_D, and a
# small BaseModel stand-in supplies set_requires_grad as the repository's base class does.
import torch
import torch.nn as nn

torch.manual_seed(0)


class BaseModel:
    def __init__(self, opt):
        self.device = torch.device("cpu")

    @staticmethod
    def set_requires_grad(net, flag):
        for p in net.parameters():
            p.requires_grad = flag


def define_G(in_nc, out_nc, ngf):
    return nn.Sequential(
        nn.Conv2d(in_nc, ngf, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(ngf, out_nc, 3, padding=1),
        nn.Tanh(),
    )


def define_D(in_nc, ndf):
    return nn.Sequential(
        nn.Conv2d(in_nc, ndf, 3, stride=2, padding=1),
        nn.LeakyReLU(0.2),
        nn.Conv2d(ndf, 1, 3, padding=1),
    )


def interpolated_penalty(critic, real_pair, fake_pair, device, lambda_gp=10.0):
    alpha = torch.rand(real_pair.shape[0], 1, 1, 1, device=device)
    mixed = alpha * real_pair + (1 - alpha) * fake_pair
    mixed.requires_grad_(True)
    scores = critic(mixed)
    grads = torch.autograd.grad(
        outputs=scores,
        inputs=mixed,
        grad_outputs=torch.ones_like(scores),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    grads = grads.view(real_pair.size(0), -1)
    penalty = ((grads.norm(2, dim=1) - 1.0) ** 2).mean() * lambda_gp
    return penalty, grads


class Options:
    input_nc, output_nc, ngf, ndf = 2, 2, 6, 6
    n_critic, lambda_gp, lr = 3, 10.0, 1e-3


class Pix2PixWGANModel(BaseModel):
    def __init__(self, opt):
        BaseModel.__init__(self, opt)
        self.netG = define_G(opt.input_nc, opt.output_nc, opt.ngf)
        self.netD = define_D(opt.input_nc + opt.output_nc, opt.ndf)
        self.criterionL1 = nn.L1Loss()
        self.n_critic = opt.n_critic
        self.gp_weight = opt.lambda_gp
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.9))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.9))

    def set_input(self, batch):
        self.real_A = batch["A"].to(self.device)
        self.real_B = batch["B"].to(self.device)

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = pred_fake.mean()
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = -pred_real.mean()
        self.loss_gp, _ = interpolated_penalty(
            self.netD, real_AB, fake_AB, self.device, lambda_gp=self.gp_weight
        )
        self.loss_D = self.loss_D_fake + self.loss_D_real + self.loss_gp
        self.loss_D.backward()  # realworld: fails

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


model = Pix2PixWGANModel(Options())
for step in range(4):
    model.set_input({"A": torch.randn(2, 2, 8, 8), "B": torch.randn(2, 2, 8, 8)})
    model.optimize_parameters()

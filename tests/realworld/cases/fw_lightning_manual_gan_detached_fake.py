# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/12682
# Rebuilt in our own words: the post runs the manual-optimization GAN sample from the Lightning docs (DCGAN recipe): one batch of generated images is scored by the discriminator twice, once detached for the discriminator's update and once attached for the generator's update, each followed by manual_backward and its own optimizer step.
# Mechanism: fake detached for critic step
import torch
from torch import Tensor, nn
from pytorch_lightning import LightningModule


class Painter(nn.Module):
    def __init__(self, z_dim=64, out_dim=784):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(z_dim, 256), nn.ReLU(), nn.Linear(256, out_dim), nn.Tanh())

    def forward(self, z):
        return self.body(z)


class Critic(nn.Module):
    def __init__(self, in_dim=784):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1), nn.Sigmoid())

    def forward(self, x):
        return self.body(x)


class ManualGAN(LightningModule):
    def __init__(self, z_dim=64):
        super().__init__()
        self.G = Painter(z_dim)
        self.D = Critic()
        self.criterion = nn.BCELoss()
        self._Z = torch.distributions.Normal(torch.zeros(z_dim), torch.ones(z_dim))
        self.automatic_optimization = False

    def configure_optimizers(self):
        g_opt = torch.optim.Adam(self.G.parameters(), lr=2e-4, betas=(0.5, 0.999))
        d_opt = torch.optim.Adam(self.D.parameters(), lr=2e-4, betas=(0.5, 0.999))
        return g_opt, d_opt

    def sample_z(self, n) -> Tensor:
        return self._Z.sample((n,)).to(self.device)

    def sample_G(self, n) -> Tensor:
        return self.G(self.sample_z(n))

    def training_step(self, batch, batch_idx):
        g_opt, d_opt = self.optimizers()

        X, _ = batch
        n = X.shape[0]
        X = X.view(n, -1)
        ones = torch.ones((n, 1), device=self.device)
        zeros = torch.zeros((n, 1), device=self.device)

        g_X = self.sample_G(n)

        d_real = self.D(X)
        err_real = self.criterion(d_real, ones)
        d_fake = self.D(g_X.detach())
        err_fake = self.criterion(d_fake, zeros)
        err_D = err_real + err_fake

        d_opt.zero_grad()
        self.manual_backward(err_D)
        d_opt.step()

        d_fake_for_g = self.D(g_X)
        err_G = self.criterion(d_fake_for_g, ones)

        g_opt.zero_grad()
        self.manual_backward(err_G)
        g_opt.step()

        self.log_dict({"g_loss": err_G, "d_loss": err_D}, prog_bar=True)

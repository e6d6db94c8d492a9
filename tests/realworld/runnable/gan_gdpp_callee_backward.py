# Source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83
# Rebuilt in our own words: progressive-GAN trainer whose generator step back-propagates the adversarial loss, then hands the discriminator features of the same fake batch to a GDPP diversity-loss helper that runs its own backward.
# Mechanism: callee calls backward
# Runnable completion: small MLP generator/discriminator, a WGAN-style criterion, and a
# local finiteCheck stand in for the repository's modules.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def finiteCheck(params):
    for p in params:
        if p.grad is not None:
            p.grad[~torch.isfinite(p.grad)] = 0


def gdpp_penalty(phi_fake, phi_real, backward=True):
    def spectrum(phi):
        phi = F.normalize(phi, p=2, dim=1)
        gram = torch.mm(phi, phi.t())
        return torch.linalg.eigh(gram)

    fake_vals, fake_vecs = spectrum(phi_fake)
    real_vals, real_vecs = spectrum(phi_real)
    magnitude = 1e-4 * F.mse_loss(fake_vals, real_vals)
    structure = -torch.sum(fake_vecs * real_vecs, 0)
    span = real_vals.max() - real_vals.min()
    weights = (real_vals - real_vals.min()) / span
    total = magnitude + torch.sum(weights * structure)
    if backward:
        total.backward(retain_graph=True)  # realworld: fails
    return total.item()


class FeatureCritic(nn.Module):
    def __init__(self, dim, width):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(dim, width), nn.LeakyReLU(0.2), nn.Linear(width, width), nn.LeakyReLU(0.2)
        )
        self.head = nn.Linear(width, 1)

    def forward(self, x, get_feature=False):
        phi = self.body(x)
        out = self.head(phi)
        return (out, phi) if get_feature else out


def wgan_criterion(pred, target_is_real):
    return -pred.mean() if target_is_real else pred.mean()


class ProgressiveTrainerCore:
    def __init__(self, netG, netD, criterion, optG, optD, latent_dim, use_gdpp=True):
        self.netG, self.netD = netG, netD
        self.criterion = criterion
        self.optimizerG, self.optimizerD = optG, optD
        self.latent_dim = latent_dim
        self.use_gdpp = use_gdpp

    def build_noise(self, n):
        return torch.randn(n, self.latent_dim)

    def optimize_parameters(self, real_batch):
        self.real_input = real_batch
        n = real_batch.size(0)
        stats = {}

        self.optimizerD.zero_grad()
        pred_real, _ = self.netD(self.real_input, True)
        fake = self.netG(self.build_noise(n)).detach()
        pred_fake, _ = self.netD(fake, True)
        loss_d = self.criterion(pred_real, True) + self.criterion(pred_fake, False)
        loss_d.backward()
        self.optimizerD.step()
        stats["lossD"] = loss_d.item()

        self.optimizerG.zero_grad()
        self.optimizerD.zero_grad()
        fake = self.netG(self.build_noise(n))
        pred_fake, phi_fake = self.netD(fake, True)
        loss_g_fake = self.criterion(pred_fake, True)
        stats["lossG_fake"] = loss_g_fake.item()
        loss_g_fake.backward()

        if self.use_gdpp:
            _, phi_real = self.netD(self.real_input, True)
            stats["lossG_GDPP"] = gdpp_penalty(phi_fake, phi_real, backward=True)

        finiteCheck(self.netG.parameters())
        self.optimizerG.step()
        return stats


LATENT, DIM = 5, 12
netG = nn.Sequential(nn.Linear(LATENT, 16), nn.ReLU(), nn.Linear(16, DIM))
netD = FeatureCritic(DIM, 10)
trainer = ProgressiveTrainerCore(
    netG,
    netD,
    wgan_criterion,
    torch.optim.Adam(netG.parameters(), lr=1e-3),
    torch.optim.Adam(netD.parameters(), lr=1e-3),
    LATENT,
)
for it in range(3):
    trainer.optimize_parameters(torch.randn(6, DIM))

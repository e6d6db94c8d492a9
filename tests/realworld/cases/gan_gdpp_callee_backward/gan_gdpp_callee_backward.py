# Source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83
# Rebuilt in our own words: progressive-GAN trainer whose generator step back-propagates the adversarial loss, then hands the discriminator features of the same fake batch to a GDPP diversity-loss helper that runs its own backward.
# Mechanism: callee calls backward
import torch
import torch.nn.functional as F

from .utils.utils import finiteCheck


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
        total.backward(retain_graph=True)
    return total.item()


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

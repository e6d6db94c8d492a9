# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/12682
# Rebuilt in our own words: the post runs the manual-optimization GAN sample from the Lightning docs (DCGAN recipe): one batch of generated images is scored by the discriminator twice, once detached for the discriminator's update and once attached for the generator's update, each followed by manual_backward and its own optimizer step.
# Mechanism: fake detached for critic step
import lightning as L
import torch
from torch import Tensor, nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Painter(nn.Module):
    def __init__(self, z_dim=4, out_dim=12):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, out_dim), nn.Tanh()
        )

    def forward(self, z):
        return self.body(z)


class Critic(nn.Module):
    def __init__(self, in_dim=12):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid()
        )

    def forward(self, x):
        return self.body(x)


class ManualGAN(L.LightningModule):
    def __init__(self, z_dim=4):
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


images = TensorDataset(torch.rand(8, 3, 2, 2) * 2 - 1, torch.zeros(8, dtype=torch.long))
trainer = L.Trainer(
    max_epochs=1,
    limit_train_batches=3,
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
    accelerator="cpu",
)
model = ManualGAN()
trainer.fit(model, DataLoader(images, batch_size=2))

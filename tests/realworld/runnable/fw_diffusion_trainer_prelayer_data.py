# Source: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
# Rebuilt in our own words: a user feeds the library's 1D diffusion Trainer a dataset whose tensor was produced by an nn.Conv1d reshaping layer applied once to the raw signals, before training; the Trainer then samples batches from it and backpropagates every step.
# Mechanism: parameter-derived tensor built before loop
#
# Stand-in: denoising_diffusion_pytorch is not installed here; Dataset1D, a tiny
# denoiser + GaussianDiffusion1D (noise-prediction loss) and Trainer1D below keep what
# the library's 1D trainer does: cycle a DataLoader over the dataset, per step run
# gradient_accumulate_every forward passes, each loss divided and backpropagated, then
# one optimizer step. Sizes are tiny and no data file is read.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Dataset1D(Dataset):
    def __init__(self, tensor):
        self.tensor = tensor

    def __len__(self):
        return len(self.tensor)

    def __getitem__(self, idx):
        return self.tensor[idx].clone()


class Unet1D(nn.Module):
    def __init__(self, dim, channels):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(channels + 1, dim, 3, padding=1),
            nn.SiLU(),
            nn.Conv1d(dim, channels, 3, padding=1),
        )

    def forward(self, x, t):
        t_map = t.float().view(-1, 1, 1).expand(-1, 1, x.shape[-1]) / 100.0
        return self.net(torch.cat([x, t_map], dim=1))


class GaussianDiffusion1D(nn.Module):
    def __init__(self, model, seq_length, timesteps=100):
        super().__init__()
        self.model = model
        self.seq_length = seq_length
        self.num_timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, dim=0))

    def forward(self, x_start):
        t = torch.randint(0, self.num_timesteps, (x_start.shape[0],))
        noise = torch.randn_like(x_start)
        a = self.alphas_cumprod[t].view(-1, 1, 1)
        x_noisy = a.sqrt() * x_start + (1 - a).sqrt() * noise
        return F.mse_loss(self.model(x_noisy, t), noise)


def cycle(dl):
    while True:
        for data in dl:
            yield data


class Trainer1D:
    def __init__(
        self,
        diffusion,
        dataset,
        train_batch_size=4,
        train_lr=1e-4,
        train_num_steps=3,
        gradient_accumulate_every=2,
    ):
        self.model = diffusion
        self.dl = cycle(DataLoader(dataset, batch_size=train_batch_size, shuffle=True))
        self.opt = torch.optim.Adam(diffusion.parameters(), lr=train_lr)
        self.train_num_steps = train_num_steps
        self.gradient_accumulate_every = gradient_accumulate_every

    def train(self):
        for step in range(self.train_num_steps):
            for _ in range(self.gradient_accumulate_every):
                data = next(self.dl)
                loss = self.model(data) / self.gradient_accumulate_every
                loss.backward()  # realworld: fails
            self.opt.step()
            self.opt.zero_grad()


raw = torch.randn(16, 3, 16)
to_channels = nn.Conv1d(in_channels=raw.shape[1], out_channels=4, kernel_size=1)
signals = to_channels(raw)

model = Unet1D(dim=8, channels=4)
diffusion = GaussianDiffusion1D(model, seq_length=16, timesteps=100)

dataset = Dataset1D(signals)
trainer = Trainer1D(
    diffusion,
    dataset=dataset,
    train_batch_size=4,
    train_lr=8e-5,
    train_num_steps=3,
    gradient_accumulate_every=2,
)
trainer.train()

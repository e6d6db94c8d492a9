# Source: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
# Rebuilt in our own words: a user feeds the library's 1D diffusion Trainer a dataset whose tensor was produced by an nn.Conv1d reshaping layer applied once to the raw signals, before training; the Trainer then samples batches from it and backpropagates every step.
# Mechanism: parameter-derived tensor built before loop
import torch
import torch.nn as nn
from denoising_diffusion_pytorch import Unet1D, GaussianDiffusion1D, Trainer1D, Dataset1D

raw = torch.load("signals.pt")
to_channels = nn.Conv1d(in_channels=raw.shape[1], out_channels=32, kernel_size=1)
signals = to_channels(raw)

model = Unet1D(dim=64, dim_mults=(1, 2, 4, 8), channels=32)
diffusion = GaussianDiffusion1D(model, seq_length=128, timesteps=1000, objective="pred_v")

dataset = Dataset1D(signals)
trainer = Trainer1D(
    diffusion,
    dataset=dataset,
    train_batch_size=32,
    train_lr=8e-5,
    train_num_steps=700000,
    gradient_accumulate_every=2,
    ema_decay=0.995,
    amp=True,
)
trainer.train()

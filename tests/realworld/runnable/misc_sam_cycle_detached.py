# Source: https://github.com/yuval-alaluf/SAM/issues/42
# Rebuilt in our own words: an age-transformation coach does two backward calls per step, one after the forward on the real images and one after a cycle forward on the re-aged output, with a single optimizer step after both
# Mechanism: second pass input detached
# The repository's pSp network, dataset, age transformer and aging loss are replaced by small
# stand-ins (a conv encoder/decoder, random images, a tiny age regressor).
import random
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
random.seed(0)


class TinyPSP(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 6, 3, padding=1)
        )
        self.decoder = nn.Conv2d(6, 3, 1)

    def forward(self, x, return_latents=False):
        latent = self.encoder(x)
        out = torch.tanh(self.decoder(latent))
        return (out, latent) if return_latents else out


class TinyAgingLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.regressor = nn.Sequential(
            nn.Conv2d(3, 4, 3, stride=2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 1)
        )
        for p in self.regressor.parameters():
            p.requires_grad_(False)

    def extract_ages(self, imgs):
        return torch.sigmoid(self.regressor(imgs)).squeeze(-1) * 100.0

    def forward(self, y_hat, y, target_ages):
        return F.mse_loss(self.extract_ages(y_hat) / 100.0, target_ages)


class AgeTransformer:
    def __init__(self, target_age):
        self.target_age = target_age

    def __call__(self, img):
        age = (
            random.randint(20, 70) if self.target_age == "uniform_random" else int(self.target_age)
        )
        return torch.cat((img, (age / 100.0) * torch.ones((1, img.shape[1], img.shape[2]))))


class AgingCoach:
    def __init__(self, opts):
        self.opts = opts
        self.step = 0
        self.net = TinyPSP().to(opts.device)
        self.age_loss = TinyAgingLoss()
        self.optimizer = torch.optim.Adam(self.net.encoder.parameters(), lr=opts.learning_rate)
        self.loader = [
            (torch.rand(2, 3, 8, 8) * 2 - 1, torch.rand(2, 3, 8, 8) * 2 - 1) for _ in range(3)
        ]
        self.age_transformer = AgeTransformer(target_age=opts.target_age)

    def run_net(self, x):
        out, latent = self.net.forward(x, return_latents=True)
        return out, latent

    def with_source_age(self, imgs):
        ages = self.age_loss.extract_ages(imgs) / 100.0
        return [
            torch.cat((im, a * torch.ones((1, im.shape[1], im.shape[2]), device=im.device)))
            for im, a in zip(imgs, ages)
        ]

    def compute_loss(self, x, y, y_hat, latent, target_ages, kind):
        loss = F.mse_loss(y_hat, y) * self.opts.l2_lambda
        loss = loss + self.age_loss(y_hat, y, target_ages) * self.opts.aging_lambda
        loss = loss + latent.pow(2).mean() * self.opts.w_norm_lambda
        if kind == "cycle":
            loss = loss * self.opts.cycle_lambda
        return loss, {f"loss_{kind}": float(loss)}

    def train(self):
        self.net.train()
        while self.step < self.opts.max_steps:
            for x, y in self.loader:
                x, y = x.to(self.opts.device).float(), y.to(self.opts.device).float()
                self.optimizer.zero_grad()
                if random.random() <= 1.0 / 3:
                    x_in = self.with_source_age(x)
                else:
                    x_in = [self.age_transformer(im.cpu()).to(self.opts.device) for im in x]
                x_in = torch.stack(x_in)
                target_ages = x_in[:, -1, 0, 0]

                y_hat, latent = self.run_net(x_in)
                loss, logs = self.compute_loss(x, y, y_hat, latent, target_ages, "real")
                loss.backward()

                y_hat_copy = y_hat.clone().detach().requires_grad_(True)
                y_hat_back = torch.stack(self.with_source_age(y_hat_copy))
                back_ages = y_hat_back[:, -1, 0, 0]
                y_rec, latent_rec = self.run_net(y_hat_back)
                loss, cycle_logs = self.compute_loss(x, y, y_rec, latent_rec, back_ages, "cycle")
                loss.backward()
                self.optimizer.step()

                logs.update(cycle_logs)
                if self.step % self.opts.board_interval == 0:
                    print(self.step, logs)
                self.step += 1
                if self.step >= self.opts.max_steps:
                    break


opts = SimpleNamespace(
    device="cpu",
    learning_rate=1e-3,
    target_age="uniform_random",
    l2_lambda=1.0,
    aging_lambda=0.5,
    w_norm_lambda=0.01,
    cycle_lambda=1.0,
    board_interval=2,
    max_steps=6,
)
AgingCoach(opts).train()

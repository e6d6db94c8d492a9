# Source: https://github.com/yuval-alaluf/SAM/issues/42
# Rebuilt in our own words: an age-transformation coach does two backward calls per step, one after the forward on the real images and one after a cycle forward on the re-aged output, with a single optimizer step after both
# Mechanism: second pass input detached
import random

import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from models.psp import pSp
from datasets.images_dataset import ImagesDataset
from datasets.augmentations import AgeTransformer
from criteria.aging_loss import AgingLoss


class AgingCoach:
    def __init__(self, opts):
        self.opts = opts
        self.step = 0
        self.net = pSp(opts).to(opts.device)
        self.age_loss = AgingLoss(opts)
        self.optimizer = torch.optim.Adam(self.net.encoder.parameters(), lr=opts.learning_rate)
        self.loader = DataLoader(ImagesDataset(opts), batch_size=opts.batch_size, shuffle=True, drop_last=True)
        self.age_transformer = AgeTransformer(target_age=opts.target_age)

    def run_net(self, x):
        out, latent = self.net.forward(x, return_latents=True)
        return out, latent

    def with_source_age(self, imgs):
        ages = self.age_loss.extract_ages(imgs) / 100.0
        return [torch.cat((im, a * torch.ones((1, im.shape[1], im.shape[2]), device=im.device))) for im, a in zip(imgs, ages)]

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

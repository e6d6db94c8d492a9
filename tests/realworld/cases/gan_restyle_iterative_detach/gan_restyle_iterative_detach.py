# Source: https://github.com/yuval-alaluf/restyle-encoder/issues/33
# Rebuilt in our own words: ReStyle-style coach; the average image is rendered once at construction, and each batch runs several refinement passes of the encoder, each fed the previous pass's output and latent, with a backward after every pass and one optimizer step per batch.
# Mechanism: detached at iteration boundary
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from models.psp import pSp


class RefineCoach:
    def __init__(self, opts, train_dataset):
        self.opts = opts
        self.global_step = 0
        self.net = pSp(opts)
        self.avg_image = self.net(self.net.latent_avg.unsqueeze(0), input_code=True,
                                  randomize_noise=False, return_latents=False)[0]
        self.avg_image = self.avg_image.float().detach()
        params = list(self.net.encoder.parameters())
        self.optimizer = torch.optim.Adam(params, lr=opts.learning_rate)
        self.train_dataloader = DataLoader(train_dataset, batch_size=opts.batch_size,
                                           shuffle=True, drop_last=True)

    def calc_loss(self, x, y, y_hat, latent):
        loss_l2 = F.mse_loss(y_hat, y)
        loss_w = ((latent - self.net.latent_avg) ** 2).sum(dim=-1).mean()
        loss = loss_l2 * self.opts.l2_lambda + loss_w * self.opts.w_norm_lambda
        return loss, {'loss_l2': float(loss_l2), 'loss': float(loss)}

    def perform_train_iteration_on_batch(self, x, y):
        y_hat, latent = None, None
        loss_dict = None
        outputs = []
        for it in range(self.opts.n_iters_per_batch):
            if it == 0:
                avg_for_batch = self.avg_image.unsqueeze(0).repeat(x.shape[0], 1, 1, 1)
                x_input = torch.cat([x, avg_for_batch], dim=1)
                y_hat, latent = self.net.forward(x_input, latent=None, return_latents=True)
            else:
                y_hat_clone = y_hat.clone().detach().requires_grad_(True)
                latent_clone = latent.clone().detach().requires_grad_(True)
                x_input = torch.cat([x, y_hat_clone], dim=1)
                y_hat, latent = self.net.forward(x_input, latent=latent_clone, return_latents=True)

            loss, loss_dict = self.calc_loss(x, y, y_hat, latent)
            loss.backward()
            outputs.append(y_hat)
        return outputs, loss_dict

    def train(self):
        self.net.train()
        while self.global_step < self.opts.max_steps:
            for x, y in self.train_dataloader:
                self.optimizer.zero_grad()
                y_hats, loss_dict = self.perform_train_iteration_on_batch(x.float(), y.float())
                self.optimizer.step()
                if self.global_step % self.opts.board_interval == 0:
                    print(self.global_step, loss_dict)
                self.global_step += 1
                if self.global_step >= self.opts.max_steps:
                    break

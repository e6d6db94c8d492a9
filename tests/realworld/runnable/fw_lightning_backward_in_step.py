# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
# Rebuilt in our own words: an unsupervised exposure-correction LightningModule whose training_step computes a reconstruction + smoothness loss, calls loss.backward() itself, and then returns the loss to Lightning's automatic optimization.
# Mechanism: framework backpropagates returned loss
import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(0)


class CurveEstimator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1)
        )

    def forward(self, im):
        curve = torch.sigmoid(self.body(im)) * 2.0
        return im.clamp(min=1e-4) ** curve, curve


class SmoothnessLoss(nn.Module):
    def forward(self, x):
        dh = (x[..., 1:, :] - x[..., :-1, :]).pow(2).mean()
        dw = (x[..., :, 1:] - x[..., :, :-1]).pow(2).mean()
        return dh + dw


class ExposureFixer(L.LightningModule):
    def __init__(self, smooth_weight=0.05, lr=2e-4):
        super().__init__()
        self.smooth_weight = smooth_weight
        self.lr = lr
        self.net = CurveEstimator()
        self.recon = nn.L1Loss()
        self.smooth = SmoothnessLoss()

    def configure_optimizers(self):
        return torch.optim.Adam(self.net.parameters(), lr=self.lr, betas=(0.9, 0.99))

    def make_target(self, im):
        with torch.no_grad():
            brighter = im.clamp(min=1e-4) ** 0.7
        return brighter

    def training_step(self, batch, batch_idx):
        im = batch
        target = self.make_target(im)
        enhanced, curve = self.net(im)
        recon_loss = self.recon(enhanced, target)
        smooth_loss = self.smooth(curve)
        loss = recon_loss + self.smooth_weight * smooth_loss
        loss.backward()
        self.log("recon", recon_loss, on_step=True)
        self.log("total", loss, on_step=True)
        return loss


images = DataLoader([torch.rand(3, 8, 8) for _ in range(8)], batch_size=2)
trainer = L.Trainer(
    max_epochs=1,
    limit_train_batches=3,
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
    accelerator="cpu",
)
trainer.fit(ExposureFixer(), images)  # realworld: fails

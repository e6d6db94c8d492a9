# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
# Rebuilt in our own words: an unsupervised exposure-correction LightningModule whose training_step computes a reconstruction + smoothness loss, calls loss.backward() itself, and then returns the loss to Lightning's automatic optimization.
# Mechanism: framework backpropagates returned loss
import torch
from pytorch_lightning import LightningModule

from nets import CurveEstimator
from losses import SmoothnessLoss


class ExposureFixer(LightningModule):
    def __init__(self, smooth_weight=0.05, lr=2e-4):
        super().__init__()
        self.smooth_weight = smooth_weight
        self.lr = lr
        self.net = CurveEstimator()
        self.recon = torch.nn.L1Loss()
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

# Source: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
# Rebuilt in our own words: the repository's LightningModule (the file the thread points at) keeps the previous batch and a pseudo target built from the model's own output in self attributes, and trains on them one step later; the helper detaches the model output before it enters the target.
# Mechanism: detached at iteration boundary
import torch
from pytorch_lightning import LightningModule

from scorer import QualityScorer
from nets import CurveEstimator


class LaggedSelfTarget(LightningModule):
    def __init__(self, n_refs=3, gamma_lo=-1.5, gamma_hi=1.5, lr=1e-4):
        super().__init__()
        self.n_refs = n_refs
        self.gamma_lo = gamma_lo
        self.gamma_hi = gamma_hi
        self.lr = lr
        self.net = CurveEstimator()
        self.scorer = QualityScorer()
        self.mse = torch.nn.MSELoss()
        self.prev_batch = None
        self.prev_target = None

    def configure_optimizers(self):
        return torch.optim.Adam(self.net.parameters(), lr=self.lr)

    def build_target(self, im):
        n = im.shape[0]
        spans = torch.linspace(self.gamma_lo, self.gamma_hi, steps=self.n_refs)
        gammas = torch.exp(torch.rand(n, self.n_refs, device=im.device) * spans[None, :])
        synthetic = 1 - (1 - im[:, None]) ** gammas[:, :, None, None, None]
        own_output = self.net(im)[0].clone().detach()
        candidates = torch.cat([im[:, None], own_output[:, None], synthetic], dim=1)
        k = candidates.shape[1]
        scores = self.scorer(candidates.flatten(0, 1)).view(n, k, 1, *im.shape[-2:])
        best = scores.argmax(dim=1, keepdim=True).expand(-1, -1, im.shape[1], -1, -1)
        return torch.gather(candidates, 1, best).squeeze(1)

    def training_step(self, batch, batch_idx):
        current = batch
        current_target = self.build_target(batch)
        if self.prev_batch is not None:
            pred, curve = self.net(self.prev_batch)
            loss = self.mse(pred, self.prev_target) + 0.1 * curve.diff(dim=-1).abs().mean()
            self.log("total_loss", loss, on_epoch=True, on_step=False)
        else:
            loss = None
        self.prev_batch = current
        self.prev_target = current_target
        return loss

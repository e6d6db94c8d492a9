# Twin of legacy_lightning_penalty_after_step.py: the hook back-propagates the judge's
# penalty before the judge's optimizer steps, so the step changes weights no pending
# graph still needs. Run by tests/test_lightning_legacy.py through the same reproduction
# of Lightning's (before 1.1) loop; clean.
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn


class PenalizedPair(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.maker = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 6))
        self.judge = nn.Sequential(nn.Linear(6, 16), nn.Softplus(), nn.Linear(16, 1))
        self.penalty = None

    def configure_optimizers(self):
        judge_opt = torch.optim.Adam(self.judge.parameters(), lr=1e-3)
        maker_opt = torch.optim.Adam(self.maker.parameters(), lr=1e-3)
        return [judge_opt, maker_opt]

    def training_step(self, batch, batch_idx, optimizer_idx):
        noise = torch.randn(batch.shape[0], 4)
        if optimizer_idx == 0:
            fake = self.maker(noise).detach()
            loss = F.softplus(self.judge(fake)).mean() + F.softplus(-self.judge(batch)).mean()
            batch.requires_grad = True
            (grad,) = torch.autograd.grad(self.judge(batch).sum(), batch, create_graph=True)
            self.penalty = grad.pow(2).sum(1).mean()
            return {"loss": loss}
        return {"loss": F.softplus(-self.judge(self.maker(noise))).mean()}

    def optimizer_step(
        self,
        epoch,
        batch_idx,
        optimizer,
        optimizer_idx,
        second_order_closure=None,
        on_tpu=False,
        using_native_amp=False,
        using_lbfgs=False,
    ):
        if optimizer_idx == 0:
            (10.0 * self.penalty).backward()
        optimizer.step()
        optimizer.zero_grad()

# Source: https://github.com/TensorAuto/OpenTau/pull/530
# Rebuilt in our own words: a robot-policy model's forward_sequence walks an action chunk segment by segment, hands each segment's weighted loss to a backward hook that the training script wires to accelerator.backward, and also collects the same per-segment loss tensors to build the loss dict it returns; the script then backpropagates that dict's total.
# Mechanism: callee calls backward
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator


class SegmentedPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim, n_bins, hidden=256, segment=4, mse_w=1.0, ce_w=0.5):
        super().__init__()
        self.backbone = nn.GRU(obs_dim, hidden, batch_first=True)
        self.action_head = nn.Linear(hidden, act_dim)
        self.token_head = nn.Linear(hidden, n_bins)
        self.segment = segment
        self.mse_w = mse_w
        self.ce_w = ce_w
        self.tbptt_backward_fn = None

    def forward_sequence(self, obs, actions, tokens):
        mse_terms, ce_terms = [], []
        h = None
        for start in range(0, obs.shape[1], self.segment):
            stop = start + self.segment
            feats, h = self.backbone(obs[:, start:stop], h)
            h = h.detach()
            mse = F.mse_loss(self.action_head(feats), actions[:, start:stop])
            ce = F.cross_entropy(self.token_head(feats).flatten(0, 1), tokens[:, start:stop].flatten())
            if self.tbptt_backward_fn is not None:
                self.tbptt_backward_fn(self.mse_w * mse + self.ce_w * ce)
            mse_terms.append(mse)
            ce_terms.append(ce)
        denominator = len(mse_terms)
        mse_total = torch.stack(mse_terms).sum() / denominator
        ce_total = torch.stack(ce_terms).sum() / denominator
        return {"loss": self.mse_w * mse_total + self.ce_w * ce_total, "mse": mse_total, "ce": ce_total}

    def forward(self, batch):
        return self.forward_sequence(batch["obs"], batch["actions"], batch["tokens"])


def train(cfg, policy, dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=cfg.grad_accum)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=cfg.lr)
    policy, optimizer, dataloader = accelerator.prepare(policy, optimizer, dataloader)
    policy.tbptt_backward_fn = accelerator.backward
    for step, batch in enumerate(dataloader):
        with accelerator.accumulate(policy):
            losses = policy(batch)
            accelerator.backward(losses["loss"])
            optimizer.step()
            optimizer.zero_grad()
        if step % cfg.log_every == 0:
            accelerator.print(step, {k: v.item() for k, v in losses.items()})

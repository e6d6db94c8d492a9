# Source: https://github.com/davda54/sam/issues/10
# Rebuilt in our own words: a multi-head model sums per-task losses for the first SAM pass, re-runs the forward for the second pass, but keeps adding the new per-task losses onto the same running total.
# Mechanism: accumulated loss backpropagated
# The SAM class below is a small stand-in for the repository's sam.py (first_step climbs to
# w + e(w) in place, second_step restores w and applies the base optimizer).
import torch
from torch import nn

torch.manual_seed(0)


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        norm = torch.norm(
            torch.stack(
                [
                    p.grad.norm()
                    for g in self.param_groups
                    for p in g["params"]
                    if p.grad is not None
                ]
            )
        )
        for group in self.param_groups:
            scale = group["rho"] / (norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


def run_batch(model, optimizer, image, target, n_heads, head_loss, stats):
    preds, attn = model(image)

    total = 0
    for h in range(n_heads):
        loss_h, acc_h = head_loss(preds, target, h)
        total += loss_h
        stats["loss"][h] += loss_h.item()
        stats["acc"][h] += acc_h.item()

    optimizer.zero_grad()
    total.backward()
    optimizer.first_step(zero_grad=True)

    preds, attn = model(image)
    for h in range(n_heads):
        loss_h, acc_h = head_loss(preds, target, h)
        total += loss_h
        stats["loss"][h] += loss_h.item()
        stats["acc"][h] += acc_h.item()
    total.backward()  # realworld: fails
    optimizer.second_step(zero_grad=True)


class TwoHeadNet(nn.Module):
    def __init__(self, n_heads=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
        self.heads = nn.Linear(16, n_heads)
        self.attn = nn.Linear(16, 1)

    def forward(self, x):
        h = self.body(x)
        return self.heads(h), torch.sigmoid(self.attn(h))


def head_loss(preds, target, h):
    logit = preds[:, h]
    loss = nn.functional.binary_cross_entropy_with_logits(logit, target[:, h])
    acc = ((logit > 0).float() == target[:, h]).float().mean()
    return loss, acc


n_heads = 3
model = TwoHeadNet(n_heads)
optimizer = SAM(model.parameters(), torch.optim.SGD, rho=0.05, lr=0.05)
stats = {"loss": [0.0] * n_heads, "acc": [0.0] * n_heads}
for _ in range(2):
    image = torch.randn(16, 10)
    target = torch.randint(0, 2, (16, n_heads)).float()
    run_batch(model, optimizer, image, target, n_heads, head_loss, stats)

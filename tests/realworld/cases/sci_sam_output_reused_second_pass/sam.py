# Source: https://github.com/davda54/sam/blob/3c3afdbd71cff2462ec91c734b3d1170bd0f3707/sam.py
# Rebuilt in our own words: the sharpness-aware minimisation optimizer. It wraps a base
# optimizer over the same parameter groups. `first_step` (under no_grad) saves each
# parameter's data and moves it in place to w + e(w), e(w) = rho * grad / ||grad||
# (times w^2 when adaptive); `second_step` (under no_grad) sets `p.data` back to the
# saved w and lets the base optimizer step; `step(closure)` runs first step, the
# closure (with grad enabled) and second step.
import torch


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
        assert rho >= 0.0, f"Invalid rho, should be non-negative: {rho}"
        super().__init__(params, dict(rho=rho, adaptive=adaptive, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups
        self.defaults.update(self.base_optimizer.defaults)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                p.add_((torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p))
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def step(self, closure=None):
        assert closure is not None, "Sharpness Aware Minimization requires closure, but it was not provided"
        closure = torch.enable_grad()(closure)
        self.first_step(zero_grad=True)
        closure()
        self.second_step()

    def _grad_norm(self):
        device = self.param_groups[0]["params"][0].device
        norms = [((torch.abs(p) if group["adaptive"] else 1.0) * p.grad).norm(p=2).to(device)
                 for group in self.param_groups for p in group["params"] if p.grad is not None]  # fmt: skip
        return torch.norm(torch.stack(norms), p=2)

# Source: https://github.com/Liuhong99/Sophia/blob/a7e157229b71d58cf995d32854f1be15c265b350/sophia.py
# Rebuilt in our own words: the SophiaG optimizer: a torch Optimizer whose
# `update_hessian` (under no_grad) folds the squared current gradients into an EMA of
# the Hessian diagonal, and whose `step(bs=...)` (under no_grad) decays the weights,
# updates the gradient EMA and moves each parameter in place by the sign of that EMA
# times a ratio to rho * bs * hessian clipped at 1. (The capturable and complex-number
# paths of the repository are left out.)
import torch
from torch.optim.optimizer import Optimizer


class SophiaG(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.965, 0.99), rho=0.04, weight_decay=1e-1, *,
                 maximize=False):  # fmt: skip
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid beta parameters: {betas}")
        defaults = dict(lr=lr, betas=betas, rho=rho, weight_decay=weight_decay, maximize=maximize)
        super().__init__(params, defaults)

    def _state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = torch.tensor(0.0)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["hessian"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        return state

    @torch.no_grad()
    def update_hessian(self):
        for group in self.param_groups:
            _, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is not None:
                    self._state(p)["hessian"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)

    @torch.no_grad()
    def step(self, closure=None, bs=5120):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, _ = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state(p)
                grad = -p.grad if group["maximize"] else p.grad
                state["step"] += 1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
                ratio = (state["exp_avg"].abs() / (group["rho"] * bs * state["hessian"] + 1e-15)).clamp(None, 1)
                p.addcmul_(state["exp_avg"].sign(), ratio, value=-group["lr"])
        return loss

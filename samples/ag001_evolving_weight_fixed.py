"""Online linear regression whose step size is learned by hypergradient descent.

Fixed: `w` is detached (and made a leaf that requires grad again) at the top of
each step, so each meta-step differentiates through its own update only.
"""

import torch
import torch.nn.functional as F

torch.manual_seed(0)

FEATURES = 6
true_w = torch.randn(FEATURES, 1)


def sample_batch(n=32):
    x = torch.randn(n, FEATURES)
    return x, x @ true_w + 0.1 * torch.randn(n, 1)


log_lr = torch.tensor(-3.0, requires_grad=True)
meta_optimizer = torch.optim.Adam([log_lr], lr=0.05)

w = torch.zeros(FEATURES, 1, requires_grad=True)
for step in range(6):
    w = w.detach().requires_grad_()
    x, y = sample_batch()
    x_val, y_val = sample_batch()
    train_loss = F.mse_loss(x @ w, y)
    (grad,) = torch.autograd.grad(train_loss, w)
    w = w - log_lr.exp() * grad
    val_loss = F.mse_loss(x_val @ w, y_val)
    meta_optimizer.zero_grad()
    val_loss.backward()
    meta_optimizer.step()

"""Online linear regression whose step size is learned by hypergradient descent.

The regression weights `w` are updated by hand, `w = w - lr * grad`, and the log
step size is trained through that update on a held-out batch. `w` is carried to
the next batch still attached to the update's graph, so the second meta-step's
backward() runs back through the first update, whose graph is already freed.
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
    x, y = sample_batch()
    x_val, y_val = sample_batch()
    train_loss = F.mse_loss(x @ w, y)
    (grad,) = torch.autograd.grad(train_loss, w)
    w = w - log_lr.exp() * grad
    val_loss = F.mse_loss(x_val @ w, y_val)
    meta_optimizer.zero_grad()
    val_loss.backward()  # expect: AG001
    meta_optimizer.step()

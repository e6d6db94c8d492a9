# runnable
# Metrics kept on device as tensors (no .item() sync per step), but detached,
# plus an EMA of the loss for the progress bar.
import torch
from torch import nn

torch.manual_seed(32)
net = nn.Linear(6, 1)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)

ema = None
epoch_losses = []
abs_err_sum = torch.zeros(1)
for it in range(8):
    x, y = torch.randn(16, 6), torch.randn(16, 1)
    pred = net(x)
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    epoch_losses.append(loss.detach())
    abs_err_sum += (pred.detach() - y).abs().sum(0)
    ema = loss.detach() if ema is None else 0.9 * ema + 0.1 * loss.detach()
print(torch.stack(epoch_losses).mean(), abs_err_sum, ema)

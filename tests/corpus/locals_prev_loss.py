# runnable
# Trying to add a smoothness term between consecutive batches' losses.
import torch
import torch.nn as nn

torch.manual_seed(10)
net = nn.Sequential(nn.Linear(3, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.01)

for it in range(6):
    xb, yb = torch.randn(8, 3), torch.randn(8, 1)
    loss = nn.functional.mse_loss(net(xb), yb)
    if "prev" in locals():
        loss = loss + 0.1 * (loss - prev).abs()
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()
    prev = loss

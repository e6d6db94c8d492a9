# runnable
# The twin of periodic_backward_accumulates_in_else.py, fixed: both losses go through one
# backward per batch, and the periodic one sums losses whose graphs no backward freed
# (a separate forward pass for the side loss, kept until its own backward and step).
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
side_model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
side_optimizer = torch.optim.SGD(side_model.parameters(), lr=0.01)
pending = 0
for i in range(8):
    x = torch.randn(3, 4)
    main_loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    main_loss.backward()
    optimizer.step()
    if (i + 1) % 4 == 0:
        side_optimizer.zero_grad()
        pending.backward()
        side_optimizer.step()
        pending = 0
    else:
        pending = pending + side_model(x).abs().mean() / 4

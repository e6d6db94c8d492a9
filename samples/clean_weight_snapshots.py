"""Training loop instrumented to watch its weights move.

Each step records the update-to-weight ratio and a snapshot of the first layer's
weights for plotting its trajectory. Both come from `.detach().clone()`: copies of
the values with no graph behind them, so the lists grow by plain tensors only.
"""

import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.randn(16, 10), torch.randn(16, 1)) for _ in range(5)]

trajectory, update_ratios = [], []
for x, y in batches:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    before = [p.detach().clone() for p in model.parameters()]
    optimizer.step()
    ratio = max((p.detach() - b).norm() / b.norm() for p, b in zip(model.parameters(), before))
    update_ratios.append(ratio.item())
    trajectory.append(model[0].weight.detach().clone())

print(f"largest update ratio {max(update_ratios):.4f} over {len(trajectory)} snapshots")

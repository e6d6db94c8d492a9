"""Regression loop that keeps a running loss for its progress line.

`total_loss = total_loss + loss` keeps every batch's graph attached to the running
sum, and the loop back-propagates the sum instead of the batch loss: from the second
batch on, backward() walks into graphs earlier backward() calls already freed.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

inputs = torch.randn(64, 10)
targets = inputs @ torch.randn(10, 1) + 0.1 * torch.randn(64, 1)
loader = DataLoader(TensorDataset(inputs, targets), batch_size=16, shuffle=True)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.MSELoss()

total_loss = 0.0
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    total_loss = total_loss + loss
    optimizer.zero_grad()
    total_loss.backward()  # expect: AG001
    optimizer.step()
    print(f"step {step}: running loss {total_loss.item() / (step + 1):.4f}")

"""Distilling a teacher network into a smaller student on a fixed transfer set.

Fixed: the soft targets are still computed once, up front, but under
`torch.no_grad()`, so they are plain tensors with no graph behind them.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

CLASSES, T = 10, 2.0
teacher = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, CLASSES))
student = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, CLASSES))
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)

transfer_set = torch.randn(128, 20)
with torch.no_grad():
    soft_targets = F.softmax(teacher(transfer_set) / T, dim=-1)

for epoch in range(5):
    log_probs = F.log_softmax(student(transfer_set) / T, dim=-1)
    loss = F.kl_div(log_probs, soft_targets, reduction="batchmean") * T * T
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

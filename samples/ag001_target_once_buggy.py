"""Distilling a teacher network into a smaller student on a fixed transfer set.

The teacher's soft targets are computed once, up front, to save time. But the
teacher's parameters require grad, so the targets carry the teacher's graph, and
the KL loss back-propagates into it: the first backward() frees it and the second
epoch's backward() fails on it.
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
soft_targets = F.softmax(teacher(transfer_set) / T, dim=-1)

for epoch in range(5):
    log_probs = F.log_softmax(student(transfer_set) / T, dim=-1)
    loss = F.kl_div(log_probs, soft_targets, reduction="batchmean") * T * T
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

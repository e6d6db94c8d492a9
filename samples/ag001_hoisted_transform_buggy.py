"""Classifier trained together with a learned softmax temperature.

The temperature is kept as a log so it stays positive, but `exp()` is taken once,
before the loop. Every batch divides by that one tensor, whose small graph is
freed by the first backward(); the second batch's backward() fails on it (and the
optimizer's updates to `log_temperature` would never reach `temperature` anyway).
"""

import torch
from torch import nn

torch.manual_seed(0)

CLASSES = 5
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, CLASSES))
log_temperature = nn.Parameter(torch.zeros(1))
optimizer = torch.optim.Adam([*model.parameters(), log_temperature], lr=1e-3)
criterion = nn.CrossEntropyLoss()

batches = [(torch.randn(16, 12), torch.randint(0, CLASSES, (16,))) for _ in range(5)]

temperature = log_temperature.exp()
for features, labels in batches:
    logits = model(features) / temperature
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

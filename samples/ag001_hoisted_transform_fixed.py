"""Classifier trained together with a learned softmax temperature.

Fixed: `exp()` is taken inside the loop, so each batch uses the current
temperature and back-propagates through its own copy of that small graph.
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

for features, labels in batches:
    temperature = log_temperature.exp()
    logits = model(features) / temperature
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

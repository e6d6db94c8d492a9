"""Temporal ensembling: predictions are pulled toward the mean of recent ones.

Each step appends its prediction to `history` and the consistency loss compares
against the mean of the last few entries. The stored predictions keep their
graphs, so the next step's backward() runs into earlier steps' freed graphs.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

WINDOW, CONSISTENCY = 3, 0.5
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 5))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 10)
labels = torch.randint(0, 5, (64,))

history = []
for epoch in range(5):
    probs = F.softmax(model(x), dim=1)
    loss = F.nll_loss(probs.clamp_min(1e-8).log(), labels)
    if history:
        ensemble = torch.stack(history[-WINDOW:]).mean(dim=0)
        loss = loss + CONSISTENCY * F.mse_loss(probs, ensemble)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    history.append(probs)

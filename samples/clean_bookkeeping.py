"""A training loop with the usual bookkeeping around it.

Data statistics, class weights and positional features are computed once before
the loop from tensors that do not require grad; the loss EMA, the loss history
and the best loss hold plain numbers from `.item()`. None of it carries a graph
from one step into the next.
"""

import copy
import math

import torch
from torch import nn

torch.manual_seed(0)

STEPS, FEATURES, CLASSES = 10, 6, 3
data = torch.randn(96, STEPS, FEATURES) * 4 + 1
labels = torch.randint(0, CLASSES, (96,))

mean, std = data.mean(dim=(0, 1)), data.std(dim=(0, 1))
data = (data - mean) / std
class_weights = 1.0 / torch.bincount(labels, minlength=CLASSES).float()
positions = torch.arange(STEPS).float().unsqueeze(1)
positional = torch.sin(positions / 10 ** (torch.arange(FEATURES) / FEATURES))

model = nn.Sequential(
    nn.Flatten(), nn.Linear(STEPS * FEATURES, 32), nn.ReLU(), nn.Linear(32, CLASSES)
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss(weight=class_weights / class_weights.sum())

ema_loss, best_loss, best_state, history = None, math.inf, None, []
for epoch in range(3):
    for start in range(0, len(data), 32):
        x, y = data[start : start + 32] + positional, labels[start : start + 32]
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        value = loss.item()
        ema_loss = value if ema_loss is None else 0.9 * ema_loss + 0.1 * value
        history.append(value)
        if value < best_loss:
            best_loss, best_state = value, copy.deepcopy(model.state_dict())
    print(f"epoch {epoch}: ema {ema_loss:.4f}, best {best_loss:.4f}")

model.load_state_dict(best_state)

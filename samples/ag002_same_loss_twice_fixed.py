"""Training loop that gained gradient clipping in a later edit.

Fixed: the loss is back-propagated once, the gradients are clipped, and the
optimizer steps on the clipped gradients.
"""

import torch
from torch import nn

torch.manual_seed(0)

MAX_GRAD_NORM = 1.0
model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 2))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
criterion = nn.CrossEntropyLoss()

batches = [(torch.randn(16, 8), torch.randint(0, 2, (16,))) for _ in range(4)]

for step, (x, y) in enumerate(batches):
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grad norm {grad_norm.item():.3f}")

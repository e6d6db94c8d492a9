# runnable
# Gradient accumulation: effective batch = 4 micro-batches.
import torch
from torch import nn

torch.manual_seed(29)
model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
criterion = nn.CrossEntropyLoss()
accum_steps = 4
loader = [(torch.randn(2, 8), torch.randint(0, 4, (2,))) for _ in range(12)]

model.train()
optimizer.zero_grad()
for i, (inputs, labels) in enumerate(loader):
    loss = criterion(model(inputs), labels) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()

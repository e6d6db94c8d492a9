# runnable
# Mixed precision loop (the scaler is a no-op without CUDA, the code path is the same).
import torch
import torch.nn as nn

torch.manual_seed(30)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 3)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler(device, enabled=device == "cuda")

for epoch in range(2):
    for _ in range(4):
        x = torch.randn(6, 12, device=device)
        y = torch.randint(0, 3, (6,), device=device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, enabled=device == "cuda"):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        scaler.step(optimizer)
        scaler.update()

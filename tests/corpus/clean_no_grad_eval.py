# runnable
# Train / validate each epoch; validation accumulates the loss tensor itself, which
# is fine because no graph is recorded under no_grad.
import torch
import torch.nn as nn

torch.manual_seed(33)
model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()
train = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(5)]
val = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(2)]


def evaluate(model, batches):
    model.eval()
    total = 0
    with torch.no_grad():
        for x, y in batches:
            total += loss_fn(model(x), y)
    model.train()
    return total / len(batches)


best = float("inf")
for epoch in range(3):
    for x, y in train:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    val_loss = evaluate(model, val)
    best = min(best, val_loss.item())

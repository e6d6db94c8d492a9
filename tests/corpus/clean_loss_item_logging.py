# runnable
# Typical epoch loop: logging with .item() and a running metric kept detached.
import torch
import torch.nn as nn

torch.manual_seed(31)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
train_loader = [(torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(6)]

for epoch in range(3):
    total_loss = 0.0
    running = torch.zeros(())
    correct = 0
    for step, (inputs, labels) in enumerate(train_loader):
        logits = model(inputs)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        running += loss.detach()
        correct += (logits.argmax(1) == labels).sum().item()
        if step % 2 == 0:
            print(f"step {step}: {running / (step + 1):.4f}")
    print(epoch, total_loss / len(train_loader), correct)

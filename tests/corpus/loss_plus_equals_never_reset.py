# runnable
# loss is initialised once, outside both loops, and accumulated with +=
import torch
from torch import nn, optim

torch.manual_seed(11)
model = nn.Linear(5, 3)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
data = [(torch.randn(4, 5), torch.randint(0, 3, (4,))) for _ in range(5)]

loss = 0
for epoch in range(3):
    for inputs, labels in data:
        outputs = model(inputs)
        loss += criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()  # expect: AG001
        optimizer.step()
    print(f"epoch {epoch}: {loss.item():.3f}")

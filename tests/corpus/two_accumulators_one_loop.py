# runnable
# Two names keep every step's graph in one loop: the list of losses and the running sum.
# Each is its own AG003 (each needs its own `.item()` or `.detach()`).
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
running = 0.0
for step in range(5):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(loss)  # expect: AG003
    running += loss  # expect: AG003

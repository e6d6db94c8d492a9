# runnable
# train_step gets the hidden state and returns the new one so the next batch can
# continue the sequence.
import torch
from torch import nn

torch.manual_seed(8)

model = nn.LSTM(input_size=2, hidden_size=6, num_layers=2, batch_first=True)
proj = nn.Linear(6, 2)
optimizer = torch.optim.Adam([*model.parameters(), *proj.parameters()])
criterion = nn.MSELoss()


def train_step(batch, targets, state):
    output, state = model(batch, state)
    loss = criterion(proj(output), targets)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    return loss.item(), state


def batches(n):
    for _ in range(n):
        x = torch.randn(4, 10, 2)
        yield x, x.roll(-1, dims=1)


state = None
for epoch in range(2):
    for x, y in batches(3):
        loss_value, state = train_step(x, y, state)
    print("epoch", epoch, loss_value)

"""LSTM forecaster trained on consecutive windows of one long sensor stream.

`(h, c)` is handed from window to window so the model keeps its memory of the
stream, but neither tensor is detached: the second window's backward() runs back
into the first window's graph, which is already freed.
"""

import torch
from torch import nn

torch.manual_seed(0)

SENSORS, HIDDEN, WINDOW, WINDOWS, BATCH = 3, 24, 16, 6, 8


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(SENSORS, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, SENSORS)

    def forward(self, window, state):
        features, state = self.lstm(window, state)
        return self.out(features), state


stream = torch.randn(BATCH, WINDOW * WINDOWS + 1, SENSORS).cumsum(dim=1) * 0.1
model = Forecaster()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()

h = torch.zeros(1, BATCH, HIDDEN)
c = torch.zeros(1, BATCH, HIDDEN)
for start in range(0, WINDOW * WINDOWS, WINDOW):
    window = stream[:, start : start + WINDOW]
    next_values = stream[:, start + 1 : start + WINDOW + 1]
    prediction, (h, c) = model(window, (h, c))
    loss = loss_fn(prediction, next_values)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
# Rebuilt in our own words: RNN regression tutorial (sine in, cosine out) whose training loop feeds the returned hidden state into the next step, with the `h_state = h_state.data` line taken out.
# Mechanism: loop-carried hidden state
import numpy as np
import torch
from torch import nn

STEPS_PER_WINDOW = 12
FEATURES = 1
LEARNING_RATE = 0.015


class WaveRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.RNN(input_size=FEATURES, hidden_size=24, num_layers=1, batch_first=True)
        self.head = nn.Linear(24, 1)

    def forward(self, seq, h):
        states, h = self.cell(seq, h)
        preds = [self.head(states[:, t, :]) for t in range(states.size(1))]
        return torch.stack(preds, dim=1), h


net = WaveRNN()
opt = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE)
mse = nn.MSELoss()

h_state = None
for window in range(80):
    lo, hi = window * np.pi, (window + 1) * np.pi
    grid = np.linspace(lo, hi, STEPS_PER_WINDOW, dtype=np.float32)
    x = torch.from_numpy(np.sin(grid)[np.newaxis, :, np.newaxis])
    y = torch.from_numpy(np.cos(grid)[np.newaxis, :, np.newaxis])

    pred, h_state = net(x, h_state)

    loss = mse(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# runnable
# Stateful LSTM for a sensor stream: the model keeps (h, c) between calls so that
# consecutive windows see each other. Crashes at the second window.
import torch
from torch import nn

torch.manual_seed(1)


class StatefulLSTM(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.lstm = nn.LSTM(n_in, n_hidden, batch_first=True)
        self.out = nn.Linear(n_hidden, n_out)
        self.hidden = None

    def reset_states(self):
        self.hidden = None

    def forward(self, x):
        y, self.hidden = self.lstm(x, self.hidden)
        return self.out(y[:, -1])


stream = torch.randn(6, 2, 20, 3)  # six consecutive windows
targets = torch.randn(6, 2, 1)

net = StatefulLSTM(3, 8, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.01)

net.reset_states()
for window, target in zip(stream, targets):
    pred = net(window)
    loss = ((pred - target) ** 2).mean()
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()

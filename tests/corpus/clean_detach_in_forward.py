# runnable
# Stateful model that truncates BPTT itself: the stored state is detached inside
# forward, so each batch's graph ends at the batch boundary.
import torch
import torch.nn as nn

torch.manual_seed(27)


class StreamModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(2, 8, batch_first=True)
        self.head = nn.Linear(8, 1)
        self.hidden = None

    def forward(self, x):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()
        out, self.hidden = self.rnn(x, self.hidden)
        return self.head(out)


model = StreamModel()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
stream = torch.randn(1, 100, 2)
for start in range(0, 90, 10):
    x = stream[:, start : start + 10]
    y = stream[:, start + 1 : start + 11, :1]
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

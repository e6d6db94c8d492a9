# runnable
# Read that sharing the hidden tensor between batches is the problem, so I clone
# it before feeding it back in. Same error.
import torch
import torch.nn as nn

torch.manual_seed(17)
cell = nn.LSTMCell(2, 5)
fc = nn.Linear(5, 1)
opt = torch.optim.SGD([*cell.parameters(), *fc.parameters()], lr=0.05)

h, c = torch.zeros(1, 5), torch.zeros(1, 5)
signal = torch.sin(torch.linspace(0, 12, 60)).view(-1, 1, 1)
for t in range(30):
    h, c = cell(signal[t].expand(1, 2), (h.clone(), c.clone()))
    loss = (fc(h) - signal[t + 1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()

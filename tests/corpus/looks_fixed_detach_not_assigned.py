# runnable
# I call .detach() on the hidden state after each step as everyone suggests,
# still get "Trying to backward through the graph a second time".
import torch
import torch.nn as nn

torch.manual_seed(16)
gru = nn.GRU(4, 8)
lin = nn.Linear(8, 4)
opt = torch.optim.Adam(list(gru.parameters()) + list(lin.parameters()), lr=1e-3)

seq = torch.randn(50, 1, 4)
hidden = torch.zeros(1, 1, 8)
for start in range(0, 40, 10):
    chunk = seq[start : start + 10]
    nxt = seq[start + 1 : start + 11]
    output, hidden = gru(chunk, hidden)
    loss = nn.functional.mse_loss(lin(output), nxt)
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()
    hidden.detach()

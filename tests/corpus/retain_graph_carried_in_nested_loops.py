# runnable
# The GRU state is reset every epoch but carried across the steps of one; each step's
# `retain_graph=True` keeps the graph it reaches again, so the error is hidden while every
# backward walks all the epoch's earlier steps (AG004). The nesting must not hide it.
import torch

torch.manual_seed(0)
rnn = torch.nn.GRU(4, 8, batch_first=True)
for epoch in range(2):
    hidden = torch.zeros(1, 2, 8)
    for step in range(3):
        out, hidden = rnn(torch.randn(2, 5, 4), hidden)
        loss = out.pow(2).mean()
        loss.backward(retain_graph=True)  # expect: AG004

# runnable
# I reset the hidden state after every batch with h.zero_(), so it can't carry
# anything over... but the second batch still fails?
import torch
import torch.nn as nn

torch.manual_seed(14)
rnn = nn.RNN(3, 6, batch_first=True)
head = nn.Linear(6, 1)
optimizer = torch.optim.Adam([*rnn.parameters(), *head.parameters()])

h = torch.zeros(1, 2, 6)
for batch in range(4):
    x, y = torch.randn(2, 7, 3), torch.randn(2, 1)
    out, h = rnn(x, h)
    loss = ((head(out[:, -1]) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    h.zero_()  # reset the state for the next batch

# runnable
# The state is detached only every tenth batch, but a backward runs on every batch: the
# batch after a detach builds on the detached state, and the one after that carries its
# graph into a second backward, which fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)
hidden = torch.zeros(1, 2, 5)

for batch in range(30):
    out, hidden = rnn(torch.randn(2, 4, 3), hidden)
    if batch % 10 == 0:
        hidden = hidden.detach()
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

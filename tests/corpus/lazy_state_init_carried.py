# runnable
# The state is created lazily (`if hidden is None:`) and then carried across batches:
# the None test only decides where the first state comes from, the second batch's
# backward still reaches the graph the first one freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)
hidden = None
norms = []

for batch in range(3):
    if hidden is None:
        hidden = torch.zeros(1, 2, 5)
    out, hidden = rnn(torch.randn(2, 4, 3), hidden)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    if hidden is not None:
        norms.append(hidden.norm().item())

# runnable
# Test-time adaptation: evaluation runs under `torch.no_grad()`, and the adaptation step
# turns autograd back on with `torch.enable_grad()`. There the carried RNN state keeps
# the first batch's graph, and the second batch's backward fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)
hidden = torch.zeros(1, 2, 5)

with torch.no_grad(), torch.enable_grad():
    for batch in range(3):
        out, hidden = rnn(torch.randn(2, 4, 3), hidden)
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # expect: AG001
        optimizer.step()

# runnable
# The keyword form, `torch.inference_mode(mode=False)`, leaves autograd on as well: the
# carried hidden state keeps the first batch's graph, and the second backward fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)
hidden = torch.zeros(1, 2, 5)

with torch.inference_mode(mode=False):
    for batch in range(3):
        out, hidden = rnn(torch.randn(2, 4, 3), hidden)
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # expect: AG001
        optimizer.step()

# runnable
# An evaluation helper under the bare `@torch.no_grad` decorator is fine; the training
# loop around it is not: the RNN state carried across batches keeps the first batch's
# graph, and the second backward fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.RNN(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)


@torch.no_grad
def evaluate(model):
    out, _ = model(torch.randn(2, 4, 3))
    return out.pow(2).mean().item()


hidden = torch.zeros(1, 2, 5)
for batch in range(3):
    out, hidden = rnn(torch.randn(2, 4, 3), hidden)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    score = evaluate(rnn)

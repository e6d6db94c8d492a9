# runnable: raises "modified by an inplace operation"
# Got the "backward through the graph a second time" error, added retain_graph=True
# as the message suggests, and now a different error about an inplace operation.
# (Not the graph-freed error any more: the carried graph is kept alive, but the
# optimizer updated the weights it saved.)
import torch
import torch.nn as nn

torch.manual_seed(18)
rnn = nn.RNN(2, 4, batch_first=True)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.01)

hidden = torch.zeros(1, 3, 4)
for step in range(5):
    x, y = torch.randn(3, 6, 2), torch.randn(3, 1)
    out, hidden = rnn(x, hidden)
    loss = ((head(out[:, -1]) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()  # expect: AG007

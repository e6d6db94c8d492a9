# runnable
# A recurrent cell warmed up over a stream: the first steps only advance the hidden state
# and `continue` before the loss; every later step back-propagates a loss of it. The state
# is never detached, so the second step that back-propagates goes back into the graph the
# first one freed (the `continue` came before the backward: its iterations free nothing).
import torch

torch.manual_seed(0)
cell = torch.nn.GRUCell(4, 8)
head = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)
burn_in = 2
hidden = torch.zeros(1, 8)
for step in range(6):
    x = torch.randn(1, 4)
    hidden = cell(x, hidden)
    if step < burn_in:
        continue
    loss = head(hidden).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

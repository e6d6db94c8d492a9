# runnable
# A flag is rebound between two `if`s on it, so they take different branches: the first
# builds `context` with a graph before the loop (its `else`), the second reads it in every
# step. The step-2 backward goes through the graph the step-1 backward freed.
import torch

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
head = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
x = torch.randn(2, 4)
reuse = False
if reuse:  # noqa: SIM108 (the shape is two `if` statements on one flag)
    context = torch.zeros(2, 4)
else:
    context = encoder(x).tanh()
reuse = True
for step in range(3):
    if reuse:  # noqa: SIM108
        out = head(context)
    else:
        out = head(encoder(x))
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

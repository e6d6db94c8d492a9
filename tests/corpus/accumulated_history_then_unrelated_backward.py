# runnable
# `history` keeps every step's loss with its graph (AG003). The backward after the loop
# is over a new, unrelated graph: it does not use what `history` holds, so that backward
# is no reason to keep those graphs.
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for step in range(5):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(loss)  # expect: AG003
head = torch.nn.Linear(4, 1)
head(torch.randn(2, 4)).sum().backward()

# runnable
# A helper decorated with `@torch.no_grad()` encodes the data once; its result has no
# graph, so every epoch's backward builds and frees only the head's own graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)


@torch.no_grad()
def encode(batch):
    return torch.tanh(encoder(batch))


codes = encode(torch.randn(32, 6))
targets = torch.randn(32, 1)
for epoch in range(3):
    loss = ((head(codes) - targets) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

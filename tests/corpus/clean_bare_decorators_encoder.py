# runnable
# Helpers decorated with the bare `@torch.no_grad` and `@torch.inference_mode` (no
# parentheses: torch accepts both forms) encode the data once; their results carry no
# graph, so each epoch's backward frees only the head's own graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)


@torch.no_grad
def encode(batch):
    return torch.tanh(encoder(batch))


@torch.inference_mode
def encode_again(batch):
    return torch.sigmoid(encoder(batch))


data = torch.randn(32, 6)
codes = torch.cat([encode(data), encode_again(data).clone()], dim=1)
targets = torch.randn(32, 1)
for epoch in range(3):
    loss = ((head(codes) - targets) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# runnable
# The fix of comprehension_backward_per_element_shared_graph.py: the rows' losses are made
# in the comprehension and summed, and one backward goes through the shared graph once.
import torch

torch.manual_seed(0)
encoder = torch.nn.Linear(3, 3)
head = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
for epoch in range(2):
    optimizer.zero_grad()
    features = torch.tanh(encoder(torch.randn(4, 3)))
    torch.stack([head(row).sum() for row in features]).sum().backward()
    optimizer.step()

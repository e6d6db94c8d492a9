# runnable
# One backward per row of a batch's features, inside a list comprehension: the rows share
# the encoder's graph, so the second row's backward goes through the graph the first one
# freed. (The comprehension's variable once made the analysis fail on this file: its
# binding pointed at the `for ... in` clause, which has no position to show.)
import torch

torch.manual_seed(0)
encoder = torch.nn.Linear(3, 3)
head = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
for epoch in range(2):
    optimizer.zero_grad()
    features = torch.tanh(encoder(torch.randn(4, 3)))
    [head(row).sum().backward() for row in features]  # expect: AG001
    optimizer.step()

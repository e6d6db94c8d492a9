# runnable
# A Gaussian policy sampled with `torch.normal(mean, std)` once, outside the loop: the
# sample keeps `mean`'s history (torch.normal is not a fresh factory when given a tensor
# mean; its gradient to the mean is zero, the weight-decay term is what trains), so every
# update's backward reaches the graph the first one freed.
import torch
import torch.nn as nn

torch.manual_seed(0)
policy = nn.Linear(4, 2)
optimizer = torch.optim.SGD(policy.parameters(), lr=0.01)
action = torch.normal(policy(torch.randn(8, 4)), 0.1)

for update in range(3):
    loss = (action - 1.0).pow(2).mean() + 1e-2 * policy.weight.pow(2).sum()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

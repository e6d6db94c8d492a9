# runnable
# Two task losses over one shared trunk, a backward each: the first keeps the trunk's
# graph with `retain_graph=<expression>` (True whenever the second task is trained, as it
# is here). The value cannot be read statically, so it must count as retaining: saying
# nothing beats a false alarm on correct code.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Linear(4, 8)
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
optimizer = torch.optim.SGD(
    [*trunk.parameters(), *head_a.parameters(), *head_b.parameters()], lr=0.01
)
task_b_weight = 0.5

for step in range(3):
    shared = torch.tanh(trunk(torch.randn(16, 4)))
    loss_a = head_a(shared).pow(2).mean()
    loss_b = task_b_weight * head_b(shared).pow(2).mean()
    optimizer.zero_grad()
    loss_a.backward(retain_graph=task_b_weight > 0)
    if task_b_weight > 0:
        loss_b.backward()
    optimizer.step()

# runnable
# The fixed twin of retain_graph_carried_weights_saved_from_second_iteration.py: the state
# is detached before each step, so every backward walks only its own step's graph, built
# after the last optimizer step, and needs no retain_graph.
import torch
import torch.nn as nn

torch.manual_seed(3)
unit = nn.GRUCell(3, 5)
proj = nn.Linear(5, 1)
adam = torch.optim.Adam([*unit.parameters(), *proj.parameters()], lr=0.01)

carry = torch.zeros(4, 5)
for _ in range(4):
    carry = unit(torch.randn(4, 3), carry.detach())
    objective = proj(carry).pow(2).mean()
    adam.zero_grad()
    objective.backward()
    adam.step()

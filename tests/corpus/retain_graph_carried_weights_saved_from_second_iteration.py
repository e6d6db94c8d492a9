# runnable: raises "modified by an inplace operation"
# retain_graph=True on a carried state that starts as zeros: iteration 1's cell call has
# inputs without history, so its node keeps no weight for backward; from iteration 2 on the
# state has history and the cell's node saves its weights. The second backward still runs
# (its own node is fresh, iteration 1's saved none); the third reaches iteration 2's node
# after the optimizer stepped those weights, and raises the in-place error there.
import torch
import torch.nn as nn

torch.manual_seed(3)
unit = nn.GRUCell(3, 5)
proj = nn.Linear(5, 1)
adam = torch.optim.Adam([*unit.parameters(), *proj.parameters()], lr=0.01)

carry = torch.zeros(4, 5)
for _ in range(4):
    carry = unit(torch.randn(4, 3), carry)
    objective = proj(carry).pow(2).mean()
    adam.zero_grad()
    objective.backward(retain_graph=True)
    adam.step()  # expect: AG007

"""Multi-task training that collects each task's gradient on the shared backbone.

Each task loss is back-propagated on its own, and every backward() but the last
keeps the shared graph with `retain_graph=True`, so each pass still finds it intact.
The collected gradients are plain tensors (`.grad` carries no graph) and the list is
rebuilt every step.
"""

import torch
from torch import nn

torch.manual_seed(0)

TASKS = 3
backbone = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
heads = nn.ModuleList([nn.Linear(32, 1) for _ in range(TASKS)])
shared = list(backbone.parameters())
optimizer = torch.optim.SGD([*backbone.parameters(), *heads.parameters()], lr=0.01)

for step in range(3):
    x = torch.randn(16, 8)
    targets = torch.randn(16, TASKS)
    features = backbone(x)
    losses = [
        nn.functional.mse_loss(head(features), targets[:, [i]]) for i, head in enumerate(heads)
    ]

    optimizer.zero_grad()
    task_grads = []
    for i, loss in enumerate(losses):
        for p in shared:
            p.grad = None
        loss.backward(retain_graph=i < len(losses) - 1)
        task_grads.append([p.grad.clone() for p in shared])
    # The backbone steps along the tasks' mean gradient (PCGrad would project them first).
    for p, grads in zip(shared, zip(*task_grads)):
        p.grad = torch.stack(grads).mean(dim=0)
    optimizer.step()

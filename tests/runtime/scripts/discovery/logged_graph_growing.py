"""A metric computed with grad enabled and kept for logging (AG003): every step's metric
graph stays alive, with the data its MulBackward0 saved. By hand, per step: two nodes
(MulBackward0, SumBackward0) and one 8-float saved tensor, 32 bytes."""

import torch

weights = torch.randn(8, requires_grad=True)
history = []
for _step in range(5):  # loop
    batch = torch.randn(8)
    loss = (weights * batch).sum()
    loss.backward()  # steps
    metric = (weights * batch).sum()
    history.append(metric)  # kept

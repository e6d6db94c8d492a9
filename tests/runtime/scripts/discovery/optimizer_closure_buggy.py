"""L-BFGS calls the closure several times per step; the features are computed once,
outside it, so the closure's second backward reaches the graph its first one freed."""

import torch

weights = torch.randn(3, 1, requires_grad=True)
inputs = torch.randn(8, 3)
targets = torch.randn(8, 1)
optimizer = torch.optim.LBFGS([weights], max_iter=4)
for _epoch in range(2):  # loop
    features = torch.tanh(inputs @ weights)  # built

    def closure():
        optimizer.zero_grad()
        loss = (features - targets).pow(2).mean()  # noqa: B023 - the bug shown
        loss.backward()  # fails
        return loss

    optimizer.step(closure)  # steps

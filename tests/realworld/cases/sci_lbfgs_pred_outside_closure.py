# Source: https://github.com/pytorch/pytorch/issues/111369
# Rebuilt in our own words: a one-layer regressor is fitted with LBFGS, but the model output is computed once before the closure and only the loss is formed inside it.
# Mechanism: closure called repeatedly by optimizer
import torch
from torch import nn, optim

features = torch.randn(64, 5)
targets = torch.randn(64, 1)


class Regressor(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.n_in = n_in
        self.head = nn.Linear(n_in, 1)

    def forward(self, x):
        return self.head(x)


reg = Regressor(features.size(1))
lbfgs = optim.LBFGS(reg.parameters(), lr=0.5)
mse = nn.MSELoss()

outputs = reg(features)


def closure():
    lbfgs.zero_grad()
    loss = mse(outputs, targets.view(outputs.shape))
    loss.backward()
    return loss


lbfgs.step(closure)

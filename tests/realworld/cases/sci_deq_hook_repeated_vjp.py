# Source: https://github.com/locuslab/deq/issues/11
# Rebuilt in our own words: a deep-equilibrium layer finds its fixed point without grad, re-attaches one application of the cell, and in a backward hook solves the implicit adjoint with a fixed-point iteration that takes many vector-Jacobian products of the same re-evaluated cell output.
# Mechanism: retain_graph on repeated vjp in hook
import torch
import torch.nn as nn
from torch import autograd


def picard(f, z0, max_iter=40, tol=1e-5):
    z = z0
    for k in range(max_iter):
        z_next = f(z)
        if (z_next - z).norm() / (z_next.norm() + 1e-8) < tol:
            return z_next, k
        z = z_next
    return z, max_iter


class Cell(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.lin_z = nn.Linear(width, width)
        self.lin_x = nn.Linear(width, width)
        with torch.no_grad():
            self.lin_z.weight.mul_(0.3)

    def forward(self, z, x):
        return torch.tanh(self.lin_z(z) + self.lin_x(x))


class EquilibriumLayer(nn.Module):
    def __init__(self, f, solver, **kwargs):
        super().__init__()
        self.f = f
        self.solver = solver
        self.kwargs = kwargs

    def forward(self, x):
        with torch.no_grad():
            z, self.forward_iters = self.solver(lambda z: self.f(z, x), torch.zeros_like(x), **self.kwargs)
        z = self.f(z, x)

        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            g, self.backward_iters = self.solver(
                lambda y: autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad, **self.kwargs
            )
            return g

        z.register_hook(backward_hook)
        return z


width = 8
layer = EquilibriumLayer(Cell(width), picard, max_iter=30)
head = nn.Linear(width, 3)
opt = torch.optim.Adam(list(layer.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(3):
    x = torch.randn(5, width)
    y = torch.randint(0, 3, (5,))
    loss = nn.functional.cross_entropy(head(layer(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

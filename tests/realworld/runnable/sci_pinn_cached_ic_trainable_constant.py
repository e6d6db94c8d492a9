# Source: https://github.com/lululxvi/deepxde/pull/2077
# Rebuilt in our own words: a DeepXDE inverse diffusion problem puts the unknown coefficient inside the sine of the initial condition and trains with L-BFGS while IC/BC function values are cached.
# Mechanism: cached value in library object
# deepxde is not assumed installed: IC, autocache, PINNModel below are small stand-ins that keep
# the library's mechanism: the IC function value is memoised per (id(X), beg, end) on the
# fixed numpy training points, and training runs torch L-BFGS whose closure rebuilds the
# network loss and calls backward on every evaluation.
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
np.random.seed(0)


def npfunc_range_autocache(func):
    cache = {}

    def wrapper_cache(X, beg, end):
        key = (id(X), beg, end)
        if key not in cache:
            cache[key] = func(X[beg:end])
        return cache[key]

    return wrapper_cache


class IC:
    def __init__(self, func):
        self.func = npfunc_range_autocache(func)

    def error(self, X, outputs, beg, end):
        return outputs[beg:end] - self.func(X, beg, end)


class PINNModel:
    def __init__(self, net, train_x, n_initial, pde, ic, variables):
        self.net = net
        self.train_x = train_x
        self.n_initial = n_initial
        self.pde = pde
        self.ic = ic
        self.variables = variables

    def train(self, max_iter=6):
        params = list(self.net.parameters()) + list(self.variables)
        opt = torch.optim.LBFGS(params, lr=0.5, max_iter=max_iter)

        def closure():
            opt.zero_grad()
            inputs = torch.as_tensor(self.train_x).requires_grad_()
            outputs = self.net(inputs)
            ic_err = self.ic.error(self.train_x, outputs, 0, self.n_initial)
            residual = self.pde(inputs, outputs)[self.n_initial :]
            total_loss = (ic_err**2).mean() + (residual**2).mean()
            total_loss.backward()  # realworld: fails
            return total_loss

        opt.step(closure)


K = torch.tensor(1.5, requires_grad=True)


def pde(x, y):
    g = torch.autograd.grad(y.sum(), x, create_graph=True)[0]
    dy_x, dy_t = g[:, 0:1], g[:, 1:2]
    dy_xx = torch.autograd.grad(dy_x.sum(), x, create_graph=True)[0][:, 0:1]
    forcing = torch.exp(-x[:, 1:2]) * (
        torch.sin(np.pi * x[:, 0:1]) - np.pi**2 * torch.sin(np.pi * x[:, 0:1])
    )
    return dy_t - dy_xx + forcing


def initial_profile(x):
    return torch.sin(K * torch.as_tensor(x[:, 0:1])) * torch.as_tensor(np.exp(-x[:, 1:2]))


n_initial = 8
x_init = np.stack([np.linspace(-1, 1, n_initial), np.zeros(n_initial)], axis=1)
x_dom = np.stack([np.random.uniform(-1, 1, 30), np.random.uniform(0, 1, 30)], axis=1)
train_x = np.vstack([x_init, x_dom]).astype(np.float32)

net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
model = PINNModel(net, train_x, n_initial, pde, IC(initial_profile), [K])
model.train()

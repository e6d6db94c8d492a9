# Source: https://github.com/lululxvi/deepxde/pull/2077
# Rebuilt in our own words: the same DeepXDE inverse diffusion set-up, but the unknown coefficient enters the initial condition only as an additive offset, trained with L-BFGS while IC/BC values are cached.
# Mechanism: cached graph without saved tensors
import deepxde as dde
import numpy as np
import torch

K = dde.Variable(1.5)


def pde(x, y):
    dy_t = dde.grad.jacobian(y, x, i=0, j=1)
    dy_xx = dde.grad.hessian(y, x, i=0, j=0)
    forcing = torch.exp(-x[:, 1:2]) * (torch.sin(np.pi * x[:, 0:1]) - np.pi ** 2 * torch.sin(np.pi * x[:, 0:1]))
    return dy_t - dy_xx + forcing


def exact(x):
    return np.sin(np.pi * x[:, 0:1]) * np.exp(-x[:, 1:])


def initial_profile(x):
    return torch.sin(np.pi * torch.as_tensor(x[:, 0:1])) * torch.as_tensor(np.exp(-x[:, 1:2])) + K


geom = dde.geometry.Interval(-1, 1)
timedomain = dde.geometry.TimeDomain(0, 1)
geomtime = dde.geometry.GeometryXTime(geom, timedomain)

bc = dde.icbc.DirichletBC(geomtime, exact, lambda _, on_boundary: on_boundary)
ic = dde.icbc.IC(geomtime, initial_profile, lambda _, on_initial: on_initial)

probe_x = np.vstack((np.linspace(-1, 1, num=8), np.full((8), 1))).T
probes = dde.icbc.PointSetBC(probe_x, exact(probe_x), component=0)

data = dde.data.TimePDE(
    geomtime,
    pde,
    [bc, ic, probes],
    num_domain=30,
    num_boundary=10,
    num_initial=8,
    anchors=probe_x,
    solution=exact,
    num_test=200,
)

net = dde.nn.FNN([2] + [16] * 3 + [1], "tanh", "Glorot uniform")
model = dde.Model(data, net)
model.compile("L-BFGS", external_trainable_variables=K)
tracker = dde.callbacks.VariableValue(K, period=50)
losshistory, train_state = model.train(callbacks=[tracker])

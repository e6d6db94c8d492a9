# runnable
# A DeepXDE boundary condition whose values are scaled by a trainable variable: the
# DirichletBC calls its function once on the boundary points and keeps the values, graph
# included, and Model.train back-propagates the conditions' losses at every iteration,
# so the second iteration reaches the graph the first freed (lululxvi/deepxde#2077).
import os

os.environ["DDE_BACKEND"] = "pytorch"

import deepxde as dde  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

scale = dde.Variable(2.0)


def residual(x, y):
    return -dde.grad.hessian(y, x) - torch.sin(x)


def boundary_values(x):
    return scale * torch.as_tensor(np.cos(x))


segment = dde.geometry.Interval(0.0, 1.0)
edge = dde.icbc.DirichletBC(segment, boundary_values, lambda _, on_boundary: on_boundary)
problem = dde.data.PDE(segment, residual, [edge], num_domain=12, num_boundary=2)
solver = dde.Model(problem, dde.nn.FNN([1, 8, 1], "tanh", "Glorot uniform"))
solver.compile("adam", lr=1e-3, external_trainable_variables=scale)
solver.train(iterations=3, display_every=1)  # expect: AG001

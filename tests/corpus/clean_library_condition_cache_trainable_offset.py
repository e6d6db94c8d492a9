# runnable
# Twin of library_condition_cache_trainable_scale.py: the trainable variable is only added
# to the boundary values. The kept values still carry a graph, but its one node over the
# variable is an addition, which saves no tensor, so every iteration goes through it again
# without error (the DeepXDE pull request's working case).
import os

os.environ["DDE_BACKEND"] = "pytorch"

import deepxde as dde  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

offset = dde.Variable(2.0)


def residual(x, y):
    return -dde.grad.hessian(y, x) - torch.sin(x)


def boundary_values(x):
    return torch.as_tensor(np.cos(x)) + offset


segment = dde.geometry.Interval(0.0, 1.0)
edge = dde.icbc.DirichletBC(segment, boundary_values, lambda _, on_boundary: on_boundary)
problem = dde.data.PDE(segment, residual, [edge], num_domain=12, num_boundary=2)
solver = dde.Model(problem, dde.nn.FNN([1, 8, 1], "tanh", "Glorot uniform"))
solver.compile("adam", lr=1e-3, external_trainable_variables=offset)
solver.train(iterations=3, display_every=1)

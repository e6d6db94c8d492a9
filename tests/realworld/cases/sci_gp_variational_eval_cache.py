# Source: https://github.com/cornellius-gp/gpytorch/issues/2689
# Rebuilt in our own words: a sparse variational GP is put in eval mode and two separate queries each backpropagate a mean-based objective to their own inputs.
# Mechanism: cached value in library object
import gpytorch
import torch
from gpytorch.models.approximate_gp import ApproximateGP
from gpytorch.variational import VariationalStrategy
from gpytorch.variational.cholesky_variational_distribution import (
    CholeskyVariationalDistribution,
)


class SparseRegressor(ApproximateGP):
    def __init__(self, anchors):
        q_u = CholeskyVariationalDistribution(anchors.size(0))
        strategy = VariationalStrategy(
            self,
            anchors,
            q_u,
            learn_inducing_locations=False,
        )
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ZeroMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.MaternKernel(nu=2.5))

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


gp = SparseRegressor(anchors=torch.rand(8, 3))
gp.eval()

query_a = torch.rand(4, 3).requires_grad_(True)
target_a = torch.rand(4)
post_a = gp(query_a)
objective_a = ((post_a.mean - target_a) ** 2).sum()
objective_a.backward()

query_b = torch.rand(6, 3).requires_grad_(True)
target_b = torch.rand(6)
post_b = gp(query_b)
objective_b = ((post_b.mean - target_b) ** 2).sum()
objective_b.backward()

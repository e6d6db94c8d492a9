# runnable
# A sparse variational GP in eval mode answers two queries, each back-propagated to its
# own inputs. gpytorch's variational strategy keeps what its first eval-mode call computed
# from the model's parameters (the variational distribution, the Cholesky factor of the
# inducing covariance) and the second query reuses that graph, freed by the first
# backward (cornellius-gp/gpytorch#2689).
import gpytorch
import torch


class InducingRegressor(gpytorch.models.ApproximateGP):
    def __init__(self, anchors):
        posterior = gpytorch.variational.CholeskyVariationalDistribution(anchors.size(0))
        strategy = gpytorch.variational.VariationalStrategy(
            self, anchors, posterior, learn_inducing_locations=False
        )
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


torch.manual_seed(5)
regressor = InducingRegressor(torch.rand(6, 2))
regressor.eval()

first = torch.rand(3, 2, requires_grad=True)
regressor(first).mean.sum().backward()

second = torch.rand(4, 2, requires_grad=True)
regressor(second).mean.sum().backward()  # expect: AG002

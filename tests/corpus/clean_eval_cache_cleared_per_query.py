# runnable
# Twin of eval_cache_two_queries.py: the model goes back to training mode and into eval
# mode again before each query; `train()` clears what gpytorch's variational strategy
# kept from the previous eval-mode call (`eval()` alone, once in eval mode, does not), so
# each query builds and back-propagates its own graph.
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

for size in (3, 4):
    regressor.train()
    regressor.eval()
    query = torch.rand(size, 2, requires_grad=True)
    regressor(query).mean.sum().backward()

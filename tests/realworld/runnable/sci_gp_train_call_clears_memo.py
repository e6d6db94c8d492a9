# Source: https://github.com/cornellius-gp/gpytorch/issues/1754
# Rebuilt in our own words: a sparse GP's variational posterior is optimised directly through samples drawn from it, with the model switched back to train mode at the top of every step.
# Mechanism: cache cleared by library call each iteration
import gpytorch
import torch


class InducingPointGP(gpytorch.models.ApproximateGP):
    def __init__(self, z):
        q_u = gpytorch.variational.CholeskyVariationalDistribution(z.size(-1))
        strategy = gpytorch.variational.VariationalStrategy(
            self, z, q_u, learn_inducing_locations=True
        )
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        mean = self.mean_module(x)
        covar = self.covar_module(x)
        return gpytorch.distributions.MultivariateNormal(mean, covar)


torch.manual_seed(0)
gp = InducingPointGP(torch.linspace(-2.0, 2.0, 12))
gp.train()

adam = torch.optim.Adam(gp.parameters(), lr=0.05)
for step in range(4):
    adam.zero_grad()
    gp.train()
    draws = gp.variational_strategy.variational_distribution.rsample(torch.Size([3]))
    objective = (draws - 1.0).pow(2).mean()
    objective.backward()
    adam.step()

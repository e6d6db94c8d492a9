# Source: https://github.com/meta-pytorch/botorch/issues/2253
# Rebuilt in our own words: objective and constraint observations are computed from design points that require grad, two SingleTaskGPs are built on them as a model list, and the summed marginal likelihood is fitted.
# Mechanism: training targets with history held by model
# botorch is not assumed installed: SingleTaskGP, ModelListGP and fit_gpytorch_mll below are
# small stand-ins on top of gpytorch that keep what matters here: the GP stores the targets
# it was built with, and the fitting routine re-evaluates the marginal likelihood on them and
# backpropagates once per optimisation step.
import gpytorch
import torch
from gpytorch.mlls.sum_marginal_log_likelihood import SumMarginalLogLikelihood

torch.manual_seed(0)


class SingleTaskGP(gpytorch.models.ExactGP):
    def __init__(self, train_X, train_Y):
        likelihood = gpytorch.likelihoods.GaussianLikelihood()
        super().__init__(train_X, train_Y.squeeze(-1), likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


class ModelListGP(gpytorch.models.IndependentModelList):
    pass


def fit_gpytorch_mll(mll, steps=6):
    mll.train()
    model = mll.model
    opt = torch.optim.Adam(mll.parameters(), lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        output = model(*model.train_inputs)
        loss = -mll(output, model.train_targets)
        loss.backward()  # realworld: fails
        opt.step()
    mll.eval()
    return mll


designs = torch.rand(24, 3, requires_grad=True)

objective = (torch.sin(3.0 * designs) + 0.5 * designs).sum(dim=-1, keepdim=True)
constraint = (designs**3 - designs).sum(dim=-1, keepdim=True)

print(objective.grad_fn, constraint.grad_fn)

gp_obj = SingleTaskGP(designs, objective).to(designs)
gp_con = SingleTaskGP(designs, constraint).to(designs)

surrogate = ModelListGP(gp_obj, gp_con)
mll = SumMarginalLogLikelihood(surrogate.likelihood, surrogate)

fit_gpytorch_mll(mll)

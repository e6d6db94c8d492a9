# runnable
# A Gaussian-process surrogate fitted by botorch on observations computed from inputs
# that require grad: SingleTaskGP keeps them as its training targets, and
# fit_gpytorch_mll back-propagates the marginal likelihood over them at every optimizer
# iteration, so its second iteration reaches the freed graph (meta-pytorch/botorch#2253).
import torch
from botorch import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from gpytorch.mlls import ExactMarginalLogLikelihood

torch.manual_seed(3)

points = torch.rand(12, 2, dtype=torch.float64, requires_grad=True)
observed = torch.cos(4.0 * points).sum(dim=-1, keepdim=True)

surrogate = SingleTaskGP(points, observed)
likelihood_fit = ExactMarginalLogLikelihood(surrogate.likelihood, surrogate)
fit_gpytorch_mll(likelihood_fit)  # expect: AG001

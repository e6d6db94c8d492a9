# runnable
# Twin of library_fit_targets_with_history.py: the observations are detached before the
# surrogate keeps them, so every iteration of botorch's fit builds its own graph.
import torch
from botorch import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from gpytorch.mlls import ExactMarginalLogLikelihood

torch.manual_seed(3)

points = torch.rand(12, 2, dtype=torch.float64, requires_grad=True)
observed = torch.cos(4.0 * points).sum(dim=-1, keepdim=True)

surrogate = SingleTaskGP(points.detach(), observed.detach())
likelihood_fit = ExactMarginalLogLikelihood(surrogate.likelihood, surrogate)
fit_gpytorch_mll(likelihood_fit)

# Source: https://github.com/meta-pytorch/botorch/issues/2253
# Rebuilt in our own words: objective and constraint observations are computed from design points that require grad, two SingleTaskGPs are built on them as a model list, and the summed marginal likelihood is fitted.
# Mechanism: training targets with history held by model
import botorch, gpytorch, torch
from botorch.models import ModelListGP, SingleTaskGP
from gpytorch.mlls.sum_marginal_log_likelihood import SumMarginalLogLikelihood
from botorch import fit_gpytorch_mll

print(botorch.__version__, gpytorch.__version__, torch.__version__)

designs = torch.rand(24, 3, requires_grad=True)

objective = (torch.sin(3.0 * designs) + 0.5 * designs).sum(dim=-1, keepdim=True)
constraint = (designs ** 3 - designs).sum(dim=-1, keepdim=True)

print(objective.grad_fn, constraint.grad_fn)

gp_obj = SingleTaskGP(designs, objective).to(designs)
gp_con = SingleTaskGP(designs, constraint).to(designs)

surrogate = ModelListGP(gp_obj, gp_con)
mll = SumMarginalLogLikelihood(surrogate.likelihood, surrogate)

fit_gpytorch_mll(mll)

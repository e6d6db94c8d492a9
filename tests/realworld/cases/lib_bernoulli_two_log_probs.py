# Source: https://github.com/pytorch/pytorch/issues/11192
# Rebuilt in our own words: one Bernoulli built from a learnable probability scores two different outcomes; each weighted log-probability is back-propagated on its own.
# Mechanism: cached value in library object
import torch
from torch.distributions import Bernoulli

keep_prob = torch.tensor(0.35, requires_grad=True)
gate = Bernoulli(keep_prob)

hit_term = 1.5 * gate.log_prob(torch.tensor(1.0))
miss_term = 0.5 * gate.log_prob(torch.tensor(0.0))

hit_term.backward()
miss_term.backward()
print(keep_prob.grad)

# Source: https://github.com/pytorch/pytorch/issues/114417
# Rebuilt in our own words: a torch.distributions.Categorical is built once from a learnable logits Parameter, then its log_prob of an observed class is minimised for several optimizer steps.
# Mechanism: distribution built before loop
import torch
from torch.distributions import Categorical


def fit_class_prior(observed, n_classes=3, steps=5):
    scores = torch.nn.Parameter(torch.zeros(n_classes))
    prior = Categorical(logits=scores)
    opt = torch.optim.SGD([scores], lr=0.5)
    for step in range(steps):
        opt.zero_grad()
        nll = -prior.log_prob(observed).mean()
        nll.backward()
        opt.step()
        print(step, nll.item(), prior.logits.tolist())
    return scores


if __name__ == "__main__":
    fit_class_prior(torch.tensor([2, 2, 0]))

# runnable
# The twin of reparametrized_weight_step_between_backwards.py: both backward passes run
# before the optimizer step, so the saved `weight_orig` still has the version the graph
# recorded, and the next iteration's forward builds a fresh graph.
import torch
from torch.nn.utils import spectral_norm

torch.manual_seed(0)
scorer = spectral_norm(torch.nn.Linear(3, 4))
sgd = torch.optim.SGD(scorer.parameters(), lr=0.01)
for step in range(3):
    value = scorer(torch.randn(6, 3)).pow(2).mean()
    sgd.zero_grad()
    value.backward(retain_graph=True)
    (2 * value).backward()
    sgd.step()

# runnable
# One output of a spectral-normalised layer over plain data, back-propagated twice with
# an optimizer step between (pytorch/pytorch#55368). A plain Linear would keep only its
# input and run; spectral_norm's pre-hook computes `weight_orig / sigma` before the call,
# which saves `weight_orig`, so the step's in-place update breaks the second backward.
import torch
from torch.nn.utils import spectral_norm

torch.manual_seed(0)
scorer = spectral_norm(torch.nn.Linear(3, 4))
sgd = torch.optim.SGD(scorer.parameters(), lr=0.01)
value = scorer(torch.randn(6, 3)).pow(2).mean()
sgd.zero_grad()
value.backward(retain_graph=True)
sgd.step()  # expect: AG007
value.backward()

# runnable
# The in-place edit sits in an `except` handler: a batch that is not cached is computed
# there, and `add_` changes the output `exp()` saved for its backward. The backward raises
# "modified by an inplace operation"; the in-place check has to look inside handlers too.
import torch

weights = torch.ones(3, requires_grad=True)
cache = {}
for step in range(2):
    try:
        scores = cache[step]
    except KeyError:
        scores = weights.exp()
        scores.add_(1)  # expect: AG007
        scores.sum().backward()

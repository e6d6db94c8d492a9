# runnable
# The fixed twin of iterator_object_yields_pre_loop_graph.py: the targets are made
# without history (computed under no_grad), so the batches the loader's `__next__`
# slices carry no graph and each iteration's backward frees only its own.
import torch


class Batches:
    def __init__(self, inputs, targets, size):
        self.inputs = inputs
        self.targets = targets
        self.size = size

    def __iter__(self):
        self.cursor = 0
        return self

    def __next__(self):
        begin = self.cursor
        if begin >= len(self.inputs):
            raise StopIteration
        self.cursor = begin + self.size
        return self.inputs[begin : self.cursor], self.targets[begin : self.cursor]


torch.manual_seed(0)
inputs = torch.randn(40, 3)
scale = torch.randn(3, 1, requires_grad=True)
with torch.no_grad():
    targets = torch.mm(inputs, scale)
weight = torch.zeros(3, 1, requires_grad=True)
for xs, ys in Batches(inputs, targets, 10):
    error = ((torch.mm(xs, weight) - ys) ** 2).mean()
    error.backward()
    with torch.no_grad():
        weight -= 0.1 * weight.grad
        weight.grad.zero_()

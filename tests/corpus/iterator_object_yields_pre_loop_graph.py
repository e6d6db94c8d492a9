# runnable
# A hand-written batch loader iterates itself: `__iter__` resets a cursor and returns the
# object, `__next__` slices the tensors it was given. The targets were computed once,
# before the loop, from a tensor that requires grad, so every batch's slice reaches that
# one graph: the first backward frees it, the second raises.
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
targets = torch.mm(inputs, scale)
weight = torch.zeros(3, 1, requires_grad=True)
for xs, ys in Batches(inputs, targets, 10):
    error = ((torch.mm(xs, weight) - ys) ** 2).mean()
    error.backward()  # expect: AG001
    with torch.no_grad():
        weight -= 0.1 * weight.grad
        weight.grad.zero_()

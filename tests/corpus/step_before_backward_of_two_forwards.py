# runnable
# `pair` sums two forward passes built before `optimizer.step()`; its backward comes after
# the step, which has updated in place the weights both passes saved, and raises
# "modified by an inplace operation". The report names the first pass that saved them.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    first = model(torch.randn(3, 4))
    pair = model(torch.randn(3, 4)) + model(torch.randn(3, 4))
    first.sum().backward()
    optimizer.step()  # expect: AG007
    pair.sum().backward()

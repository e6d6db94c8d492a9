# Source: https://taourl.com/read-2213894.html
# Rebuilt in our own words: a page says a loop that optimises a leaf tensor, rebuilding the objective from it each iteration and calling backward, breaks on the second iteration and needs retain_graph=True or a detach
# Mechanism: fresh graph per iteration
import torch

torch.manual_seed(0)

scores = torch.randn(6, requires_grad=True)
target = torch.linspace(-1.0, 1.0, 6)
optimizer = torch.optim.SGD([scores], lr=0.2)

for i in range(25):
    objective = ((scores - target) ** 2).sum() + 0.01 * scores.abs().sum()
    objective.backward()
    optimizer.step()
    optimizer.zero_grad()
    if i % 5 == 0:
        print(i, objective.item())

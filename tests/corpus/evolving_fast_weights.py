# runnable
# Hebbian "fast weights": W is trained by gradient descent but ALSO drifts with a
# Hebbian term every step. Second step: Trying to backward through the graph a second time.
import torch

torch.manual_seed(3)

x = torch.randn(16, 6)
y = torch.randn(16, 6)
W = torch.randn(6, 6, requires_grad=True)
eta = 0.05

for step in range(5):
    h = torch.tanh(x @ W)
    loss = ((h - y) ** 2).mean()
    loss.backward()  # expect: AG001
    print(step, loss.item(), W.grad is not None)
    # hebbian drift
    W = W + eta * (x.t() @ h) / x.shape[0]

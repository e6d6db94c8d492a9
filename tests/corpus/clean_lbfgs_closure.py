# runnable
# L-BFGS needs a closure that re-evaluates the loss; step() calls it several times.
import torch
import torch.nn as nn

torch.manual_seed(25)
X = torch.randn(64, 3)
y = X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3

model = nn.Linear(3, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)
loss_fn = nn.MSELoss()

for epoch in range(4):

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    print(epoch, loss.item())

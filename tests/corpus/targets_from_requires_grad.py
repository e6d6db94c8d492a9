# runnable
# Synthetic regression: the "true" weights are made with requires_grad=True by
# copy-paste from the model cell. Targets are computed once up front.
import torch

torch.manual_seed(12)

true_w = torch.randn(4, 1, requires_grad=True)
true_b = torch.zeros(1, requires_grad=True)
X = torch.randn(100, 4)
Y = torch.sigmoid(X @ true_w + true_b)

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)

for epoch in range(20):
    pred = torch.sigmoid(model(X))
    loss = torch.nn.functional.binary_cross_entropy(pred, Y)
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()

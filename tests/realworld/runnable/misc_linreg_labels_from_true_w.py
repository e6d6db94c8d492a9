# Source: https://github.com/zhangyu2234/Deep-learning-by-hand
# Rebuilt in our own words: a from-scratch notebook makes synthetic regression labels from "true" weights created with requires_grad=True, then fits a one-layer net on mini-batches of those labels with a hand-written SGD
# Mechanism: parameter-derived tensor built before loop
import random

import torch

torch.manual_seed(0)
random.seed(0)

n_rows = 300
n_in = 3
n_out = 1
features = torch.randn((n_rows, n_in), dtype=torch.float32)
w_true = torch.randn((n_in, n_out), requires_grad=True, dtype=torch.float32)
b_true = torch.randn(1, requires_grad=True, dtype=torch.float32)
labels = torch.mm(features, w_true) + b_true


# helpers the notebook imports from its own utils module
def relu(x):
    return torch.clamp(x, min=0)


def squared_loss(y_hat, y):
    return ((y_hat - y.reshape(y_hat.shape)) ** 2 / 2).sum()


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad / batch_size
            p.grad.zero_()


class BatchLoader:
    def __init__(self, x, y, batch_size, shuffle=False):
        self.x, self.y, self.batch_size, self.shuffle = x, y, batch_size, shuffle

    def __iter__(self):
        order = list(range(len(self.x)))
        if self.shuffle:
            random.shuffle(order)
        for i in range(0, len(order), self.batch_size):
            idx = torch.tensor(order[i : i + self.batch_size])
            yield self.x[idx], self.y[idx]


def dense(x, w, b):
    return relu(torch.mm(x, w) + b)


w_fit = torch.normal(0, 0.01, size=(n_in, n_out), requires_grad=True)
b_fit = torch.zeros(1, requires_grad=True)
batch = 25
lr = 0.03
epochs = 10
loader = BatchLoader(features, labels, batch, shuffle=True)

for epoch in range(epochs):
    for xb, yb in loader:
        l = squared_loss(dense(xb, w_fit, b_fit), yb)
        l.backward()  # realworld: fails
        sgd([w_fit, b_fit], lr, batch)
    if (epoch + 1) % 2 == 0:
        print(f"epoch {epoch + 1}, loss {float(l):.4f}")

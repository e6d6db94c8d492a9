# Source: https://github.com/zhangyu2234/Deep-learning-by-hand
# Rebuilt in our own words: a from-scratch notebook makes synthetic regression labels from "true" weights created with requires_grad=True, then fits a one-layer net on mini-batches of those labels with a hand-written SGD
# Mechanism: parameter-derived tensor built before loop

# In[1]:
import torch

n_rows = 3000
n_in = 3
n_out = 1
features = torch.randn((n_rows, n_in), dtype=torch.float32)
w_true = torch.randn((n_in, n_out), requires_grad=True, dtype=torch.float32)
b_true = torch.randn(1, requires_grad=True, dtype=torch.float32)
labels = torch.mm(features, w_true) + b_true

# In[2]:
from helpers.basics import relu, sgd, squared_loss, BatchLoader

# In[3]:
def dense(x, w, b):
    return relu(torch.mm(x, w) + b)

# In[4]:
w_fit = torch.normal(0, 0.01, size=(n_in, n_out), requires_grad=True)
b_fit = torch.zeros(1, requires_grad=True)
batch = 25
lr = 0.03
epochs = 10
loader = BatchLoader(features, labels, batch, shuffle=True)

# In[5]:
for epoch in range(epochs):
    for xb, yb in loader:
        l = squared_loss(dense(xb, w_fit, b_fit), yb)
        l.backward()
        sgd([w_fit, b_fit], lr, batch)
    if (epoch + 1) % 2 == 0:
        print(f"epoch {epoch + 1}, loss {float(l):.4f}")

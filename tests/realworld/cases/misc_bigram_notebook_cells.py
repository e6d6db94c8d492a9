# Source: https://github.com/karpathy/nn-zero-to-hero/issues/31
# Rebuilt in our own words: a notebook trains a bigram character model by hand; the forward-pass cell ran once and the cell with the backward and the weight update was then run step after step
# Mechanism: global state across notebook cells

# In[2]:
import torch
import torch.nn.functional as F

# In[5]:
g = torch.Generator().manual_seed(90210)
W = torch.randn((29, 29), generator=g, requires_grad=True)

# In[6]:
# forward pass
onehot = F.one_hot(inputs, num_classes=29).float()
logits = onehot @ W
counts = logits.exp()
prob = counts / counts.sum(1, keepdims=True)
loss = -prob[torch.arange(n_pairs), targets].log().mean()
print(loss.item())

# In[7]:
# backward pass and update
for step in range(30):
    W.grad = None
    loss.backward()
    W.data += -0.5 * W.grad
    print(step, loss.item())

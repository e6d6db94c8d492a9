# Source: https://github.com/karpathy/nn-zero-to-hero/issues/31
# Rebuilt in our own words: a notebook trains a bigram character model by hand; the forward-pass cell ran once and the cell with the backward and the weight update was then run step after step
# Mechanism: global state across notebook cells
import torch
import torch.nn.functional as F

torch.manual_seed(0)

# earlier cells: character pairs from a tiny made-up word list
words = ["abra", "cadabra", "kazam", "presto"]
chars = sorted(set("".join(words)))
stoi = {c: i + 1 for i, c in enumerate(chars)}
stoi["."] = 0
xs_list, ys_list = [], []
for w in words:
    seq = ["."] + list(w) + ["."]
    for a, b in zip(seq, seq[1:]):
        xs_list.append(stoi[a])
        ys_list.append(stoi[b])
inputs = torch.tensor(xs_list)
targets = torch.tensor(ys_list)
n_pairs = inputs.nelement()
V = len(stoi)

# cell: weights
g = torch.Generator().manual_seed(90210)
W = torch.randn((V, V), generator=g, requires_grad=True)

# cell: forward pass
onehot = F.one_hot(inputs, num_classes=V).float()
logits = onehot @ W
counts = logits.exp()
prob = counts / counts.sum(1, keepdims=True)
loss = -prob[torch.arange(n_pairs), targets].log().mean()
print(loss.item())

# cell: backward pass and update, repeated
for step in range(30):
    W.grad = None
    loss.backward()  # realworld: fails
    W.data += -0.5 * W.grad
    print(step, loss.item())

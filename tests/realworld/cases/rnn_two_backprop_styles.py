# Source: https://github.com/pytorch/pytorch/issues/635
# Rebuilt in our own words: script comparing two ways of backpropagating an LSTM (whole sequence in one call vs. per-step calls with the loss summed over steps), each with its own backward, then printing the gradient gap between two weight-tied copies.
# Mechanism: fresh graph per iteration
import torch
from torch import nn

model = nn.LSTM(6, 6, 1)
model2 = nn.LSTM(6, 6, 1)
with torch.no_grad():
    for w, w2 in zip(model.all_weights[0], model2.all_weights[0]):
        w2.copy_(w)

crit = nn.MSELoss()
crit2 = nn.MSELoss()

seq = torch.randn(3, 1, 6)
target = torch.ones(3, 1, 6)
hidden = [torch.zeros(1, 1, 6), torch.zeros(1, 1, 6)]

output, hidden = model(seq, hidden)
loss = crit(output, target)
loss.backward(retain_graph=True)

hidden2 = [torch.zeros(1, 1, 6), torch.zeros(1, 1, 6)]
loss2 = 0
for i in range(seq.size(0)):
    output2, hidden2 = model2(seq[i].view(1, 1, -1), hidden2)
    loss2 += crit2(output2[0], target[i])
loss2 = loss2 / seq.size(0)
loss2.backward()

diff = 0.0
for w, w2 in zip(model.all_weights[0], model2.all_weights[0]):
    diff = max(diff, (w.grad - w2.grad).abs().max().item())
print("largest gradient gap", diff)

# runnable
# Leaky integrate-and-fire layer trained with a surrogate gradient. The membrane
# potential lives on the layer and is updated every forward call.
import torch
import torch.nn as nn

torch.manual_seed(2)


class SpikeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return (v > 1.0).float()

    @staticmethod
    def backward(ctx, grad_out):
        (v,) = ctx.saved_tensors
        return grad_out / (1 + (v - 1.0).abs()) ** 2


class LIF(nn.Module):
    def __init__(self, n_in, n_out, beta=0.9):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.beta = beta
        self.mem = torch.zeros(1, n_out)

    def forward(self, x):
        self.mem = self.beta * self.mem + self.fc(x)
        spk = SpikeFn.apply(self.mem)
        self.mem = self.mem - spk  # soft reset after a spike
        return spk


layer = LIF(10, 5)
readout = nn.Linear(5, 2)
optim = torch.optim.Adam(list(layer.parameters()) + list(readout.parameters()), lr=1e-3)

for t in range(8):
    x = torch.rand(1, 10) * 2
    logits = readout(layer(x))
    loss = nn.functional.cross_entropy(logits, torch.tensor([t % 2]))
    optim.zero_grad()
    loss.backward()  # expect: AG001
    optim.step()

# Source: https://github.com/pytorch/pytorch/issues/65536
# Rebuilt in our own words: an implicit-layer style custom autograd.Function builds a small graph inside forward under enable_grad and differentiates it in backward with autograd.grad; the model is trained on two losses, the first backpropagated with retain_graph=True
# Mechanism: custom Function re-enters saved inner graph
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SmoothedStep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u):
        with torch.enable_grad():
            u_in = u.detach().requires_grad_()
            out = u_in * torch.sigmoid(3.0 * u_in) + 0.1 * torch.tanh(u_in)
        ctx.save_for_backward(out, u_in)
        return out.detach()

    @staticmethod
    def backward(ctx, grad_out):
        out, u_in = ctx.saved_tensors
        (grad_u,) = torch.autograd.grad(  # realworld: fails
            out, u_in, grad_out, retain_graph=False, create_graph=False
        )
        return grad_u


class Net(nn.Module):
    def __init__(self, d_in=6, d_hidden=10, d_out=2):
        super().__init__()
        self.inp = nn.Linear(d_in, d_hidden)
        self.out = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = SmoothedStep.apply(self.inp(x))
        return self.out(h), h


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for it in range(5):
    x = torch.randn(8, 6)
    y = torch.randn(8, 2)
    opt.zero_grad()
    pred, h = net(x)
    fit_loss = F.mse_loss(pred, y)
    sparsity = h.abs().mean()
    fit_loss.backward(retain_graph=True)
    sparsity.backward()
    opt.step()

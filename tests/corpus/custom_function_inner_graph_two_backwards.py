# runnable
# A custom autograd.Function builds a small graph under enable_grad in forward, keeps it
# with save_for_backward, and differentiates it with autograd.grad in backward
# (pytorch/pytorch#65536). Two losses share the output; the first backward keeps the
# outer graph with retain_graph=True, but the inner autograd.grad frees the inner one, so
# the second backward raises inside Smooth.backward.
import torch


class Smooth(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        with torch.enable_grad():
            inner = a.detach().requires_grad_()
            shaped = inner * torch.sigmoid(2.0 * inner)
        ctx.save_for_backward(shaped, inner)
        return shaped.detach()

    @staticmethod
    def backward(ctx, upstream):
        shaped, inner = ctx.saved_tensors
        (back,) = torch.autograd.grad(shaped, inner, upstream)
        return back


torch.manual_seed(0)
lin = torch.nn.Linear(4, 3)
sgd = torch.optim.SGD(lin.parameters(), lr=0.1)
for _ in range(2):
    mid = Smooth.apply(lin(torch.randn(5, 4)))
    sgd.zero_grad()
    mid.pow(2).mean().backward(retain_graph=True)
    mid.abs().mean().backward()  # expect: AG002
    sgd.step()

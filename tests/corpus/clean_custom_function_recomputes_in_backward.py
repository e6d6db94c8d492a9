# runnable
# The twin of custom_function_inner_graph_two_backwards.py: forward saves only its input,
# and backward rebuilds the small graph under enable_grad at each call before
# differentiating it, so each of the two backward passes has a graph of its own.
import torch


class Smooth(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * torch.sigmoid(2.0 * a)

    @staticmethod
    def backward(ctx, upstream):
        (a,) = ctx.saved_tensors
        with torch.enable_grad():
            inner = a.detach().requires_grad_()
            shaped = inner * torch.sigmoid(2.0 * inner)
        (back,) = torch.autograd.grad(shaped, inner, upstream)
        return back


torch.manual_seed(0)
lin = torch.nn.Linear(4, 3)
sgd = torch.optim.SGD(lin.parameters(), lr=0.1)
for _ in range(2):
    mid = Smooth.apply(lin(torch.randn(5, 4)))
    sgd.zero_grad()
    mid.pow(2).mean().backward(retain_graph=True)
    mid.abs().mean().backward()
    sgd.step()

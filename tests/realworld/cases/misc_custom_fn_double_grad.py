# Source: https://github.com/pytorch/pytorch/issues/18619
# Rebuilt in our own words: a custom autograd.Function whose backward reuses the saved forward output is differentiated twice per step, first with create_graph=True (to monitor the slope) and then plainly to update the parameter
# Mechanism: create_graph on first of two grads
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x ** 3
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * 3 * y / x


scale = torch.tensor(0.7, dtype=torch.double, requires_grad=True)
target = torch.linspace(0.2, 3.0, 16, dtype=torch.double)
lr = 1e-2

for step in range(200):
    x = (torch.rand(16, dtype=torch.double) + 0.5).requires_grad_()
    y = Cube.apply(scale * x)
    fit = ((y - target) ** 2).mean()
    (slope,) = torch.autograd.grad(fit, x, create_graph=True)
    (g_scale,) = torch.autograd.grad(fit, scale)
    with torch.no_grad():
        scale -= lr * g_scale
    if step % 50 == 0:
        print(step, fit.item(), slope.abs().mean().item())

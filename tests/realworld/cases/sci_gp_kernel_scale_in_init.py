# Source: https://github.com/IceLab-X/MiniGP/issues/13
# Rebuilt in our own words: a separable space-time GP builds its squared-exponential kernels with a length scale exponentiated from a log-parameter once in the kernel constructor, then fits the marginal likelihood with Adam in a helper loop.
# Mechanism: parameter-derived tensor built before loop
import torch
import torch.nn as nn

JITTER = 1e-2


class RBF(nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = torch.exp(nn.Parameter(torch.log(torch.tensor(scale))))

    def forward(self, a, b):
        a = a / self.scale
        b = b / self.scale
        sq = (a * a).sum(1, keepdim=True) - 2.0 * a @ b.t() + (b * b).sum(1, keepdim=True).t()
        return torch.exp(-0.5 * sq)


class SpaceTimeGP(nn.Module):
    def __init__(self, space_scale=2.0, time_scale=0.5, noise=0.1):
        super().__init__()
        self.log_noise = nn.Parameter(torch.log(torch.tensor(noise)))
        self.space_kernel = RBF(space_scale)
        self.time_kernel = RBF(time_scale)

    def nll(self, sites, times, values):
        ks = self.space_kernel(sites, sites) + JITTER * torch.eye(sites.size(0))
        kt = self.time_kernel(times, times) + JITTER * torch.eye(times.size(0))
        k = torch.kron(kt, ks) + torch.exp(self.log_noise) * torch.eye(ks.size(0) * kt.size(0))
        y = values.t().reshape(-1, 1)
        chol = torch.linalg.cholesky(k)
        alpha = torch.cholesky_solve(y, chol)
        return 0.5 * (y.t() @ alpha).sum() + torch.log(torch.diagonal(chol)).sum()


def fit(model, sites, times, values, lr=0.05, epochs=4):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        opt.zero_grad()
        loss = model.nll(sites, times, values)
        loss.backward()
        opt.step()
        print(f"epoch {epoch}: nll {loss.item():.3f}")


if __name__ == "__main__":
    sites = torch.rand(6, 2) * 4.0
    times = torch.linspace(0.0, 1.0, 5).view(-1, 1)
    values = torch.randn(6, 5)
    gp = SpaceTimeGP()
    fit(gp, sites, times, values)

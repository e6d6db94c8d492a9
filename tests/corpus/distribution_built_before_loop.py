# runnable
# Fitting a Gaussian by maximum likelihood. The encoder gives mean and scale; the
# distribution is built once and then I optimise log_prob over many minibatches.
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Normal

torch.manual_seed(4)

data = 3.0 + 0.5 * torch.randn(256, 1)
context = torch.ones(1, 4)
encoder = nn.Linear(4, 2)
optimizer = torch.optim.Adam(encoder.parameters(), lr=0.05)

stats = encoder(context)
mu, sigma = stats[:, :1], F.softplus(stats[:, 1:]) + 1e-4
dist = Normal(mu, sigma)

for epoch in range(3):
    for batch in data.split(64):
        nll = -dist.log_prob(batch).mean()
        optimizer.zero_grad()
        nll.backward()  # expect: AG001
        optimizer.step()

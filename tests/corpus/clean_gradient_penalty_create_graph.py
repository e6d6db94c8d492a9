# runnable
# WGAN-GP critic step: the gradient penalty differentiates the critic's output with
# `create_graph=True`, which keeps the graph (torch frees nothing), so the backward over
# the critic loss plus the penalty still reaches the critic's graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)

for step in range(3):
    real, fake = torch.randn(16, 4), torch.randn(16, 4)
    mix = torch.rand(16, 1)
    blended = (mix * real + (1 - mix) * fake).requires_grad_(True)
    scores = critic(blended)
    (slopes,) = torch.autograd.grad(scores.sum(), blended, create_graph=True)
    penalty = ((slopes.norm(dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + 10 * penalty + scores.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

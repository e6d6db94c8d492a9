# runnable
# Rebuilt from the WGAN-GP loops of the real-world yardstick (pix2pix's critic loop,
# tests/realworld/cases/gan_pix2pix_wgangp_critic_loop.py): `fake` is generated once per
# generator step, the critic is trained on it for several iterations with
# `retain_graph=True`, and the generator's backward after the critic loop goes through
# the last critic iteration's retained `fake` graph. Every retain_graph here is needed:
# without it the next critic iteration, and then the generator's backward, raise.
import torch

torch.manual_seed(0)
generator = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
critic = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4)


def gradient_penalty(real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grads = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


for step in range(3):
    fake = generator(torch.randn(8, 2))
    for _ in range(3):
        real = torch.randn(8, 4)
        opt_d.zero_grad()
        d_loss = critic(fake).mean() - critic(real).mean() + 10 * gradient_penalty(real, fake)
        d_loss.backward(retain_graph=True)
        opt_d.step()
    opt_g.zero_grad()
    g_loss = -critic(fake).mean()
    g_loss.backward()
    opt_g.step()

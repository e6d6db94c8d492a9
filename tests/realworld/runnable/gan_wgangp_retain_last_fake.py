# Source: https://github.com/aladdinpersson/Machine-Learning-Collection/issues/42
# Rebuilt in our own words: WGAN-GP on MNIST-sized images; each critic iteration draws a new fake batch and back-propagates the critic loss with retain_graph=True, and the generator step then re-scores the last fake batch with the updated critic.
# Mechanism: retain_graph on first of two passes
# Runnable completion: small DCGAN-style conv nets and a local gradient_penalty stand in for
# the repository's model.py/utils.py; random 16x16 batches replace MNIST.
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self, z_dim, channels, width):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(z_dim, width * 2, 4, 1, 0),
            nn.BatchNorm2d(width * 2),
            nn.ReLU(),
            nn.ConvTranspose2d(width * 2, width, 4, 2, 1),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.ConvTranspose2d(width, channels, 4, 2, 1),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, channels, width):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, width, 4, 2, 1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(width, width * 2, 4, 2, 1),
            nn.InstanceNorm2d(width * 2, affine=True),
            nn.LeakyReLU(0.2),
            nn.Conv2d(width * 2, 1, 4, 1, 0),
        )

    def forward(self, x):
        return self.net(x)


def initialize_weights(model):
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d, nn.BatchNorm2d)):
            nn.init.normal_(m.weight.data, 0.0, 0.02)


def gradient_penalty(critic, real, fake, device="cpu"):
    b, c, h, w = real.shape
    eps = torch.rand((b, 1, 1, 1)).repeat(1, c, h, w).to(device)
    mixed = real * eps + fake * (1 - eps)
    scores = critic(mixed)
    grad = torch.autograd.grad(
        inputs=mixed,
        outputs=scores,
        grad_outputs=torch.ones_like(scores),
        create_graph=True,
        retain_graph=True,
    )[0]
    grad = grad.view(grad.shape[0], -1)
    return torch.mean((grad.norm(2, dim=1) - 1) ** 2)


device = "cpu"
LR = 2e-4
Z_DIM = 8
EPOCHS = 2
CRITIC_STEPS = 4
GP_WEIGHT = 10
loader = [(torch.rand(4, 1, 16, 16) * 2 - 1, torch.zeros(4)) for _ in range(3)]

gen = Generator(Z_DIM, 1, 8).to(device)
critic = Discriminator(1, 8).to(device)
initialize_weights(gen)
initialize_weights(critic)
opt_gen = optim.Adam(gen.parameters(), lr=LR, betas=(0.0, 0.9))
opt_critic = optim.Adam(critic.parameters(), lr=LR, betas=(0.0, 0.9))

gen.train()
critic.train()
for epoch in range(EPOCHS):
    for batch_idx, (real, _) in enumerate(loader):
        real = real.to(device)
        n = real.shape[0]

        for _ in range(CRITIC_STEPS):
            noise = torch.randn(n, Z_DIM, 1, 1).to(device)
            fake = gen(noise)
            critic_real = critic(real).reshape(-1)
            critic_fake = critic(fake).reshape(-1)
            gp = gradient_penalty(critic, real, fake, device=device)
            loss_critic = -(torch.mean(critic_real) - torch.mean(critic_fake)) + GP_WEIGHT * gp
            critic.zero_grad()
            loss_critic.backward(retain_graph=True)
            opt_critic.step()

        gen_fake = critic(fake).reshape(-1)
        loss_gen = -torch.mean(gen_fake)
        gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()

        if batch_idx % 100 == 0:
            print(
                f"epoch {epoch} batch {batch_idx} D {loss_critic.item():.4f} G {loss_gen.item():.4f}"
            )

# Source: https://github.com/aladdinpersson/Machine-Learning-Collection/issues/42
# Rebuilt in our own words: WGAN-GP on MNIST-sized images; each critic iteration draws a new fake batch and back-propagates the critic loss with retain_graph=True, and the generator step then re-scores the last fake batch with the updated critic.
# Mechanism: retain_graph on first of two passes
import torch
import torch.optim as optim
from torch.utils.data import DataLoader

from utils import gradient_penalty
from model import Discriminator, Generator, initialize_weights

device = "cuda" if torch.cuda.is_available() else "cpu"
LR = 2e-4
Z_DIM = 64
EPOCHS = 20
CRITIC_STEPS = 4
GP_WEIGHT = 10

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
            print(f"epoch {epoch} batch {batch_idx} D {loss_critic.item():.4f} G {loss_gen.item():.4f}")

"""VAE that logs how strongly each loss term pulls on the encoder.

To read the gradient norm of each term, the reconstruction and KL losses are
back-propagated separately. `retain_graph=True` was put on the second call, but
it is the first backward() that frees the shared encoder graph, so the second one
fails before its flag could matter.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

DATA, LATENT, BATCH, BETA = 16, 4, 32, 0.5


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(DATA, 32), nn.ReLU(), nn.Linear(32, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, DATA))

    def forward(self, x):
        mu, log_var = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * log_var).exp()
        return self.decoder(z), mu, log_var


def encoder_grad_norm(model):
    return torch.cat([p.grad.flatten() for p in model.encoder.parameters()]).norm().item()


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(4):
    x = torch.rand(BATCH, DATA)
    reconstruction, mu, log_var = model(x)
    recon_loss = F.mse_loss(reconstruction, x)
    kl_loss = BETA * -0.5 * (1 + log_var - mu.pow(2) - log_var.exp()).sum(dim=1).mean()

    optimizer.zero_grad()
    recon_loss.backward()
    recon_norm = encoder_grad_norm(model)
    kl_loss.backward(retain_graph=True)  # expect: AG002, AG004
    total_norm = encoder_grad_norm(model)
    optimizer.step()
    print(f"step {step}: recon pull {recon_norm:.3f}, total {total_norm:.3f}")

# runnable
# Standard GAN step: the discriminator sees fake.detach(), the generator builds a
# fresh D(fake) graph. Two backward passes, disjoint graphs.
import torch
import torch.nn as nn

torch.manual_seed(24)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)

for it in range(5):
    real = torch.randn(8, 2) * 0.5 + 1
    fake = G(torch.randn(8, 4))

    opt_d.zero_grad()
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    g_loss = bce(D(fake), ones)
    g_loss.backward()
    opt_g.step()

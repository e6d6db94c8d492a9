# runnable
# Two losses share the encoder; the first backward keeps the graph for the second.
import torch
import torch.nn as nn

torch.manual_seed(28)
encoder = nn.Sequential(nn.Linear(6, 12), nn.Tanh())
dec_a, dec_b = nn.Linear(12, 6), nn.Linear(12, 2)
opt = torch.optim.Adam([*encoder.parameters(), *dec_a.parameters(), *dec_b.parameters()])

for step in range(4):
    x = torch.randn(10, 6)
    z = encoder(x)
    recon = nn.functional.mse_loss(dec_a(z), x)
    aux = dec_b(z).pow(2).mean()
    opt.zero_grad()
    recon.backward(retain_graph=True)
    grad_norm_recon = sum(p.grad.norm() for p in encoder.parameters())
    aux.backward()
    opt.step()

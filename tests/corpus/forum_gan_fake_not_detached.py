# runnable
# DCGAN-style step on a toy 1-D problem. D update works, then the G update raises
# "Trying to backward through the graph a second time".
import torch
import torch.nn as nn

torch.manual_seed(22)
netG = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2))
netD = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()

for i in range(3):
    real = torch.randn(8, 2) + 3
    noise = torch.randn(8, 3)
    fake = netG(noise)

    # (1) update D
    optD.zero_grad()
    errD = bce(netD(real), torch.ones(8, 1)) + bce(netD(fake), torch.zeros(8, 1))
    errD.backward()
    optD.step()

    # (2) update G
    optG.zero_grad()
    errG = bce(netD(fake), torch.ones(8, 1))
    errG.backward()  # expect: AG002
    optG.step()

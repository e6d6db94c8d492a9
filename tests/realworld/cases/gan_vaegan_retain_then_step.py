# Source: https://github.com/YixinChen-AI/CVAE-GAN-zoos-PyTorch-Beginner/issues/1
# Rebuilt in our own words: VAE-GAN on MNIST; after the discriminator update, the VAE's reconstruction+KL loss is back-propagated with retain_graph=True and the VAE optimizer steps, then the same reconstruction is scored by the discriminator for an adversarial VAE update.
# Mechanism: retain_graph on carried graph
import torch
import torch.nn as nn
import torch.optim as optim
import torchvision.datasets as dset
import torchvision.transforms as transforms


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.2),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.2),
        )
        self.fc_mean = nn.Linear(32 * 7 * 7, nz)
        self.fc_logstd = nn.Linear(32 * 7 * 7, nz)
        self.decoder_fc = nn.Linear(nz, 32 * 7 * 7)
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Sigmoid(),
        )

    def reparameterize(self, mean, logstd):
        eps = torch.randn_like(mean)
        return mean + eps * torch.exp(logstd)

    def forward(self, x):
        h = self.encoder(x).flatten(1)
        mean, logstd = self.fc_mean(h), self.fc_logstd(h)
        z = self.reparameterize(mean, logstd)
        out = self.decoder(self.decoder_fc(z).view(-1, 32, 7, 7))
        return out, mean, logstd


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.LeakyReLU(0.2), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.LeakyReLU(0.2), nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(nn.Linear(32 * 7 * 7, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1), nn.Sigmoid())

    def forward(self, x):
        return self.head(self.features(x).flatten(1)).squeeze(1)


def vae_objective(recon, x, mean, logstd):
    mse = mse_criterion(recon, x)
    var = torch.exp(logstd) ** 2
    kld = -0.5 * torch.sum(1 + torch.log(var) - mean ** 2 - var)
    return mse + kld


if __name__ == '__main__':
    nz = 32
    n_epochs = 15
    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    mnist = dset.MNIST(root='./data', train=True, transform=transforms.ToTensor(), download=True)
    loader = torch.utils.data.DataLoader(mnist, batch_size=64, shuffle=True)

    vae = VAE().to(device)
    D = Discriminator().to(device)
    bce = nn.BCELoss()
    mse_criterion = nn.MSELoss()
    optimizerD = optim.Adam(D.parameters(), lr=1e-4)
    optimizerVAE = optim.Adam(vae.parameters(), lr=1e-4)

    for epoch in range(n_epochs):
        for i, (data, _) in enumerate(loader):
            data = data.to(device)
            n = data.shape[0]
            ones, zeros = torch.ones(n, device=device), torch.zeros(n, device=device)

            D.zero_grad()
            err_real = bce(D(data), ones)
            err_real.backward()
            z = torch.randn(n, nz, device=device)
            sample = vae.decoder(vae.decoder_fc(z).view(n, 32, 7, 7))
            err_fake = bce(D(sample), zeros)
            err_fake.backward()
            optimizerD.step()

            recon, mean, logstd = vae(data)
            vae.zero_grad()
            vae_loss = vae_objective(recon, data, mean, logstd)
            vae_loss.backward(retain_graph=True)
            optimizerVAE.step()

            vae.zero_grad()
            err_vae = bce(D(recon), ones)
            err_vae.backward()
            optimizerVAE.step()

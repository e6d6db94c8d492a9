# Source: https://github.com/Liuhong99/Sophia/issues/1
# Rebuilt in our own words: a multimodal classifier trained with SophiaG; every few steps the Hessian-EMA update samples labels from the logits of the training step and backpropagates the sampled loss
# Mechanism: shared output two backwards
import torch
import torch.nn as nn
import torch.nn.functional as F
from sophia import SophiaG


class FusionNet(nn.Module):
    def __init__(self, d_img=512, d_txt=300, n_classes=12):
        super().__init__()
        self.img = nn.Sequential(nn.Linear(d_img, 256), nn.GELU())
        self.txt = nn.Sequential(nn.Linear(d_txt, 256), nn.GELU())
        self.head = nn.Linear(512, n_classes)

    def forward(self, img, txt):
        return self.head(torch.cat([self.img(img), self.txt(txt)], dim=-1))


model = FusionNet()
optimizer = SophiaG(model.parameters(), lr=2e-4, betas=(0.965, 0.99), rho=0.01, weight_decay=1e-1)
hess_every = 10
step = 0

for epoch in range(epochs):
    for img, txt, label in loader:
        logits = model(img, txt)
        loss = F.cross_entropy(logits, label)
        loss.backward()
        optimizer.step(bs=img.size(0))
        optimizer.zero_grad(set_to_none=True)
        step += 1

        if step % hess_every == hess_every - 1:
            sampler = torch.distributions.Categorical(logits=logits)
            y_sample = sampler.sample()
            loss_sampled = F.cross_entropy(logits, y_sample)
            loss_sampled.backward()
            optimizer.update_hessian()
            optimizer.zero_grad(set_to_none=True)

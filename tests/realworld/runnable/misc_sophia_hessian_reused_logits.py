# Source: https://github.com/Liuhong99/Sophia/issues/1
# Rebuilt in our own words: a multimodal classifier trained with SophiaG; every few steps the Hessian-EMA update samples labels from the logits of the training step and backpropagates the sampled loss
# Mechanism: shared output two backwards
# The `sophia` module is not installed here: SophiaG below is a small stand-in with the same
# interface (step(bs=...), update_hessian()) that keeps a gradient EMA and a squared-gradient
# Hessian EMA.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SophiaG(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.965, 0.99), rho=0.04, weight_decay=1e-1):
        super().__init__(params, dict(lr=lr, betas=betas, rho=rho, weight_decay=weight_decay))

    @torch.no_grad()
    def update_hessian(self):
        for group in self.param_groups:
            b2 = group["betas"][1]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                st.setdefault("hessian", torch.zeros_like(p))
                st["hessian"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)

    @torch.no_grad()
    def step(self, bs=1):
        for group in self.param_groups:
            b1 = group["betas"][0]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                st.setdefault("exp_avg", torch.zeros_like(p))
                st.setdefault("hessian", torch.zeros_like(p))
                p.mul_(1 - group["lr"] * group["weight_decay"])
                st["exp_avg"].mul_(b1).add_(p.grad, alpha=1 - b1)
                ratio = (st["exp_avg"].abs() / (group["rho"] * bs * st["hessian"] + 1e-15)).clamp(
                    None, 1
                )
                p.addcmul_(st["exp_avg"].sign(), ratio, value=-group["lr"])


class FusionNet(nn.Module):
    def __init__(self, d_img=10, d_txt=6, n_classes=4):
        super().__init__()
        self.img = nn.Sequential(nn.Linear(d_img, 8), nn.GELU())
        self.txt = nn.Sequential(nn.Linear(d_txt, 8), nn.GELU())
        self.head = nn.Linear(16, n_classes)

    def forward(self, img, txt):
        return self.head(torch.cat([self.img(img), self.txt(txt)], dim=-1))


model = FusionNet()
optimizer = SophiaG(model.parameters(), lr=2e-4, betas=(0.965, 0.99), rho=0.01, weight_decay=1e-1)
hess_every = 3
step = 0
epochs = 2
loader = [(torch.randn(5, 10), torch.randn(5, 6), torch.randint(0, 4, (5,))) for _ in range(4)]

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
            loss_sampled.backward()  # realworld: fails
            optimizer.update_hessian()
            optimizer.zero_grad(set_to_none=True)

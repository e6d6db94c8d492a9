# Source: https://github.com/aladdinpersson/Machine-Learning-Collection/blob/65b8c8049560b19ace11ef754cb4dbe5aa415296/ML/Pytorch/GANs/4.%20WGAN-GP/utils.py
# Rebuilt in our own words: the WGAN-GP gradient penalty the critic loop adds. The copy of
# the repository we read holds train.py (this commit), which imports it from utils.py and
# calls gradient_penalty(critic, real, fake, device), but not utils.py itself: this is the
# penalty as that call and the WGAN-GP paper define it: the critic's gradient at random
# interpolates of real and fake images, taken with create_graph=True so the penalty can be
# back-propagated, and (||grad|| - 1)^2 averaged.
import torch


def gradient_penalty(critic, real, fake, device="cpu"):
    batch, channels, height, width = real.shape
    alpha = torch.rand((batch, 1, 1, 1)).repeat(1, channels, height, width).to(device)
    mixed = real * alpha + fake * (1 - alpha)
    scores = critic(mixed)
    gradient = torch.autograd.grad(inputs=mixed, outputs=scores, grad_outputs=torch.ones_like(scores),
                                   create_graph=True, retain_graph=True)[0]  # fmt: skip
    norms = gradient.view(gradient.shape[0], -1).norm(2, dim=1)
    return torch.mean((norms - 1) ** 2)

# runnable
# Rebuilt from udacity/deep-learning-v2-pytorch's style-transfer notebook: the image is
# loaded by a helper that makes a transform object (there torchvision's Compose, here a
# functools.partial) and applies it once; the optimised image is a leaf cloned from it.
# Nothing built before the loop has history: a name bound from a call we cannot see is
# no module just because the loss is back-propagated downstream of its result.
import functools

import torch


def load_image(shape):
    in_transform = functools.partial(torch.nn.functional.normalize, dim=1)
    return in_transform(torch.rand(*shape)).unsqueeze(0)


content = load_image((3, 8))
target = content.clone().requires_grad_(True)
optimizer = torch.optim.Adam([target], lr=0.01)
for step in range(3):
    total_loss = ((target - content) ** 2).mean()
    optimizer.zero_grad()
    total_loss.backward()
    optimizer.step()

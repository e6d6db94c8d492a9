# Source: https://github.com/fangwei123456/spikingjelly/issues/594
# Rebuilt in our own words: a spiking stereo-style model is run forward on two views with functional.reset_net after each pass, and one loss over both passes is back-propagated per batch.
# Mechanism: state reset per batch
import torch
import torch.nn as nn
import torch.nn.functional as F
from spikingjelly.activation_based import functional, layer, neuron, surrogate

torch.manual_seed(0)


class SpikingDepthNet(nn.Module):
    def __init__(self, T=2):
        super().__init__()
        self.T = T
        self.encoder = nn.Sequential(
            layer.Conv2d(4, 3, 3, padding=1),
            neuron.LIFNode(surrogate_function=surrogate.ATan()),
            layer.Conv2d(3, 3, 3, padding=1),
            neuron.LIFNode(surrogate_function=surrogate.ATan()),
        )
        self.seg_head = layer.Conv2d(3, 2, 1)
        self.depth_head = layer.Conv2d(3, 1, 1)
        functional.set_step_mode(self, "m")

    def forward(self, rgb, depth):
        x = torch.cat([rgb, depth], dim=1)
        x = x.unsqueeze(0).repeat(self.T, 1, 1, 1, 1)
        feats = self.encoder(x)
        return self.seg_head(feats).mean(0), self.depth_head(feats).mean(0)


model = SpikingDepthNet()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)


def make_batch():
    return (
        torch.rand(2, 3, 5, 5),
        torch.rand(2, 1, 5, 5),
        torch.rand(2, 3, 5, 5),
        torch.rand(2, 1, 5, 5),
        torch.randint(0, 2, (2, 5, 5)),
        torch.randint(0, 2, (2, 5, 5)),
    )


train_loader = [make_batch() for _ in range(3)]

for img0, img0_depth, img1, img1_depth, mask0, mask1 in train_loader:
    seg0, dep0 = model(img0, img0_depth)
    functional.reset_net(model)
    seg1, dep1 = model(img1, img1_depth)
    functional.reset_net(model)

    loss = F.cross_entropy(seg0, mask0) + F.cross_entropy(seg1, mask1) + F.l1_loss(dep0, dep1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done")

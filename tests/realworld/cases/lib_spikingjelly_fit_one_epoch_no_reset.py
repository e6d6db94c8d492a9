# Source: https://github.com/fangwei123456/Spike-Element-Wise-ResNet/issues/19
# Rebuilt in our own words: a SEW-ResNet style backbone of multi-step spikingjelly LIF neurons is trained by a fit_one_epoch helper that the main script calls once per epoch.
# Mechanism: module state in library layer
import torch
import torch.nn as nn
import torch.nn.functional as F
from spikingjelly.activation_based import neuron, layer, functional, surrogate


class SEWBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.body = nn.Sequential(
            layer.Conv2d(channels, channels, 3, padding=1, bias=False),
            layer.BatchNorm2d(channels),
            neuron.ParametricLIFNode(surrogate_function=surrogate.ATan(), detach_reset=True),
        )

    def forward(self, x):
        return x + self.body(x)


class SEWBackbone(nn.Module):
    def __init__(self, in_ch=2, width=32, num_classes=11, T=8):
        super().__init__()
        self.T = T
        self.stem = nn.Sequential(
            layer.Conv2d(in_ch, width, 3, padding=1, bias=False),
            layer.BatchNorm2d(width),
            neuron.ParametricLIFNode(surrogate_function=surrogate.ATan(), detach_reset=True),
        )
        self.stages = nn.Sequential(SEWBlock(width), layer.MaxPool2d(2), SEWBlock(width))
        self.pool = layer.AdaptiveAvgPool2d(1)
        self.fc = layer.Linear(width, num_classes)
        functional.set_step_mode(self, "m")

    def forward(self, frames):
        x = frames.transpose(0, 1)
        x = self.stages(self.stem(x))
        x = torch.flatten(self.pool(x), 2)
        return self.fc(x).mean(0)


def fit_one_epoch(model_train, optimizer, epoch, gen, device):
    total_loss = 0
    model_train.train()
    for iteration, (frames, targets) in enumerate(gen):
        frames, targets = frames.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model_train(frames)
        loss = F.cross_entropy(outputs, targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    print(f"epoch {epoch}: {total_loss / (iteration + 1):.4f}")


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SEWBackbone().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(30):
        fit_one_epoch(model, optimizer, epoch, train_loader, device)

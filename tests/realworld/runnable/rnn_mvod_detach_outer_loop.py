# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/25
# Rebuilt in our own words: video-detector training script whose model keeps bottleneck-LSTM states between frames; each frame backpropagates with retain_graph=True and steps the optimizer, and the states are detached only after the whole clip.
# Mechanism: retain_graph on carried graph
import torch
from torch import nn

torch.manual_seed(0)


class ConvLSTMLayer(nn.Module):
    """Keeps its hidden and cell state in attributes between calls, like the repo's bottleneck LSTM."""

    def __init__(self, channels, size):
        super().__init__()
        self.gates = nn.Conv2d(2 * channels, 4 * channels, 3, padding=1)
        self.hidden_state = torch.zeros(1, channels, size, size)
        self.cell_state = torch.zeros(1, channels, size, size)

    def forward(self, x):
        i, f, o, g = self.gates(torch.cat([x, self.hidden_state], 1)).chunk(4, 1)
        c = torch.sigmoid(f) * self.cell_state + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        self.hidden_state, self.cell_state = h, c
        return h

    def detach_hidden(self):
        self.hidden_state.detach_()
        self.cell_state.detach_()


class ClipDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 4, 3, padding=1)
        self.lstm = ConvLSTMLayer(4, 5)
        self.cls_head = nn.Conv2d(4, 2, 1)
        self.box_head = nn.Conv2d(4, 4, 1)

    def forward(self, frame):
        feat = self.lstm(torch.relu(self.backbone(frame)))
        return self.cls_head(feat), self.box_head(feat)

    def detach_hidden(self):
        self.lstm.detach_hidden()


def loss_fn(scores, offsets, cls, box):
    return nn.functional.smooth_l1_loss(offsets, box), nn.functional.cross_entropy(scores, cls)


def run_epoch(loader, model, opt):
    model.train(True)
    total = 0.0
    for step, clip in enumerate(loader):
        frames, boxes, classes = clip
        for frame, box, cls in zip(frames, boxes, classes):
            opt.zero_grad()
            scores, offsets = model(frame)
            reg_loss, cls_loss = loss_fn(scores, offsets, cls, box)
            loss = reg_loss + cls_loss
            loss.backward(retain_graph=True)  # realworld: fails
            opt.step()
            total += loss.item()
        model.detach_hidden()
    model.detach_hidden()


clips = [
    (torch.randn(3, 1, 3, 5, 5), torch.randn(3, 1, 4, 5, 5), torch.randint(0, 2, (3, 1, 5, 5)))
    for _ in range(2)
]
model = ClipDetector()
opt = torch.optim.RMSprop(model.parameters(), lr=0.002, momentum=0.9, weight_decay=5e-4)
run_epoch(clips, model, opt)

# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/blob/dc3c0db9687cf25b74e013525dcf54c5d9be8fef/network/mvod_bottleneck_lstm1.py
# Rebuilt in our own words: the video detector with one bottleneck LSTM (the repository's
# MobileVOD = MobileNetV1 encoder + SSD decoder; the case names them ClipDetector,
# Backbone, DetectHead). The LSTM layer keeps its hidden and cell states on itself
# (`self.hidden_state`, `self.cell_state`, zeros at construction) and replaces them
# with the new ones, which carry the graph, on every call: frame after frame, each
# state reaches every earlier frame's forward. `detach_hidden` cuts them in place with
# `detach_()`. Fewer backbone blocks and feature maps than the repository's; the
# states live on the CPU here (the repository moves them to CUDA).
import torch
import torch.nn as nn
from torch.autograd import Variable


def conv_bn(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, oup, 3, stride, 1, bias=False), nn.BatchNorm2d(oup), nn.ReLU6(inplace=True))


def conv_dw(inp, oup, stride):
    return nn.Sequential(
        nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), nn.BatchNorm2d(inp), nn.ReLU6(inplace=True),
        nn.Conv2d(inp, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup), nn.ReLU6(inplace=True),
    )  # fmt: skip


def separable_conv(inp, oup, kernel_size=1, stride=1, padding=0):
    return nn.Sequential(
        nn.Conv2d(inp, inp, kernel_size, stride=stride, padding=padding, groups=inp), nn.ReLU6(),
        nn.Conv2d(inp, oup, 1),
    )  # fmt: skip


class BottleneckLSTMCell(nn.Module):
    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        assert hidden_channels % 2 == 0
        self.W = nn.Conv2d(input_channels, input_channels, 3, groups=input_channels, padding=1)
        self.Wy = nn.Conv2d(input_channels + hidden_channels, hidden_channels, 1)
        self.Wi = nn.Conv2d(hidden_channels, hidden_channels, 3, 1, 1, groups=hidden_channels, bias=False)
        self.gates = nn.ModuleList([nn.Conv2d(hidden_channels, hidden_channels, 1, bias=False) for _ in range(4)])
        self.relu = nn.ReLU6()

    def forward(self, x, h, c):
        bottleneck = self.Wi(self.Wy(torch.cat((self.W(x), h), 1)))
        wi, wf, wc, wo = self.gates
        cell = torch.sigmoid(wf(bottleneck)) * c + torch.sigmoid(wi(bottleneck)) * self.relu(wc(bottleneck))
        hidden = torch.sigmoid(wo(bottleneck)) * self.relu(cell)
        return hidden, cell

    def init_hidden(self, batch_size, hidden, shape):
        return (Variable(torch.zeros(batch_size, hidden, shape[0], shape[1])),
                Variable(torch.zeros(batch_size, hidden, shape[0], shape[1])))  # fmt: skip


class BottleneckLSTM(nn.Module):
    def __init__(self, input_channels, hidden_channels, height, width, batch_size):
        super().__init__()
        self.cell = BottleneckLSTMCell(input_channels, hidden_channels)
        h, c = self.cell.init_hidden(batch_size, hidden=hidden_channels, shape=(height, width))
        self.hidden_state = h
        self.cell_state = c

    def forward(self, x):
        new_h, new_c = self.cell(x, self.hidden_state, self.cell_state)
        self.hidden_state = new_h
        self.cell_state = new_c
        return self.hidden_state


class Backbone(nn.Module):
    def __init__(self, alpha=1):
        super().__init__()
        self.model = nn.Sequential(conv_bn(3, 32 * alpha, 2), conv_dw(32 * alpha, 64 * alpha, 2),
                                   conv_dw(64 * alpha, 128 * alpha, 2), conv_dw(128 * alpha, 512 * alpha, 2))  # fmt: skip

    def forward(self, x):
        return self.model(x)


class DetectHead(nn.Module):
    def __init__(self, num_classes, batch_size=1, alpha=1):
        super().__init__()
        self.num_classes = num_classes
        self.conv13 = conv_dw(512 * alpha, 1024 * alpha, 2)
        self.bottleneck_lstm1 = BottleneckLSTM(1024 * alpha, 256 * alpha, height=10, width=10, batch_size=batch_size)
        self.fmaps_1 = nn.Sequential(nn.Conv2d(256 * alpha, 128 * alpha, 1), nn.ReLU6(inplace=True),
                                     separable_conv(128 * alpha, 256 * alpha, 3, stride=2, padding=1))  # fmt: skip
        channels = (512 * alpha, 256 * alpha, 256 * alpha)
        self.regression_headers = nn.ModuleList([separable_conv(ch, 6 * 4, 3, padding=1) for ch in channels])
        self.classification_headers = nn.ModuleList(
            [separable_conv(ch, 6 * num_classes, 3, padding=1) for ch in channels]
        )

    def compute_header(self, i, x):
        confidence = self.classification_headers[i](x).permute(0, 2, 3, 1).contiguous()
        location = self.regression_headers[i](x).permute(0, 2, 3, 1).contiguous()
        return confidence.view(confidence.size(0), -1, self.num_classes), location.view(location.size(0), -1, 4)

    def forward(self, x):
        confidences, locations = [], []
        confidence, location = self.compute_header(0, x)
        confidences.append(confidence)
        locations.append(location)
        x = self.conv13(x)
        x = self.bottleneck_lstm1(x)
        confidence, location = self.compute_header(1, x)
        confidences.append(confidence)
        locations.append(location)
        x = self.fmaps_1(x)
        confidence, location = self.compute_header(2, x)
        confidences.append(confidence)
        locations.append(location)
        return torch.cat(confidences, 1), torch.cat(locations, 1)


class ClipDetector(nn.Module):
    def __init__(self, pred_enc, pred_dec):
        super().__init__()
        self.pred_encoder = pred_enc
        self.pred_decoder = pred_dec

    def forward(self, seq):
        confidences, locations = self.pred_decoder(self.pred_encoder(seq))
        return confidences, locations

    def detach_hidden(self):
        self.pred_decoder.bottleneck_lstm1.hidden_state.detach_()
        self.pred_decoder.bottleneck_lstm1.cell_state.detach_()

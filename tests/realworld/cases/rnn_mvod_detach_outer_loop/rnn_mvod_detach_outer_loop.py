# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/25
# Rebuilt in our own words: video-detector training script whose model keeps bottleneck-LSTM states between frames; each frame backpropagates with retain_graph=True and steps the optimizer, and the states are detached only after the whole clip.
# Mechanism: retain_graph on carried graph
import argparse
import logging
import sys

import torch
from torch.utils.data import DataLoader

from network.clip_lstm import ClipDetector, Backbone, DetectHead
from datasets.clips import ClipDataset
from network.box_loss import BoxLoss

parser = argparse.ArgumentParser(description="clip detector training")
parser.add_argument("--data_root")
parser.add_argument("--lr", default=0.002, type=float)
parser.add_argument("--epochs", default=50, type=int)
parser.add_argument("--clip_len", default=8, type=int)
parser.add_argument("--log_every", default=50, type=int)
args = parser.parse_args()
logging.basicConfig(stream=sys.stdout, level=logging.INFO)


def run_epoch(loader, model, loss_fn, opt, device, log_every=50, epoch=0):
    model.train(True)
    total = 0.0
    for step, clip in enumerate(loader):
        frames, boxes, classes = clip
        for frame, box, cls in zip(frames, boxes, classes):
            frame = frame.to(device)
            box = box.to(device)
            cls = cls.to(device)

            opt.zero_grad()
            scores, offsets = model(frame)
            reg_loss, cls_loss = loss_fn(scores, offsets, cls, box)
            loss = reg_loss + cls_loss
            loss.backward(retain_graph=True)
            opt.step()

            total += loss.item()
        model.detach_hidden()
        if step and step % log_every == 0:
            logging.info(f"epoch {epoch} step {step} loss {total / log_every:.4f}")
            total = 0.0
    model.detach_hidden()


if __name__ == "__main__":
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    dataset = ClipDataset(args.data_root, clip_len=args.clip_len)
    loader = DataLoader(dataset, batch_size=1, shuffle=True)
    model = ClipDetector(Backbone(), DetectHead(num_classes=dataset.num_classes))
    model.to(device)
    loss_fn = BoxLoss(device=device)
    opt = torch.optim.RMSprop(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    for epoch in range(args.epochs):
        run_epoch(loader, model, loss_fn, opt, device, log_every=args.log_every, epoch=epoch)

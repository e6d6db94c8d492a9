# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/blob/dc3c0db9687cf25b74e013525dcf54c5d9be8fef/datasets/vid_dataset_new.py
# Rebuilt in our own words: the ImageNet VID dataset in sequences of consecutive frames:
# item i is clip i of the sequence list, the list of its frames (read with OpenCV, RGB)
# with each frame's boxes and labels from its annotation file. Plain data.
import os

import cv2
import numpy as np
import torch


class ClipDataset:
    def __init__(self, root, clip_len=10, classes=("__background__", "n02691156", "n02419796")):
        self.root = root
        self.clip_len = clip_len
        self.class_names = list(classes)
        self.num_classes = len(self.class_names)
        with open(os.path.join(root, "train_VID_seqs_list.txt")) as listing:
            self.seq_list = [line.split() for line in listing if line.strip()]

    def __len__(self):
        return len(self.seq_list)

    def _frame(self, frame_id):
        image = cv2.imread(os.path.join(self.root, "Data", "VID", "train", frame_id + ".JPEG"))
        return torch.from_numpy(cv2.cvtColor(image, cv2.COLOR_BGR2RGB).astype(np.float32)).permute(2, 0, 1)

    def _annotation(self, frame_id):
        data = np.loadtxt(os.path.join(self.root, "Annotations", frame_id + ".txt"), ndmin=2)
        return torch.from_numpy(data[:, :4]).float(), torch.from_numpy(data[:, 4]).long()

    def __getitem__(self, index):
        frame_ids = self.seq_list[index][: self.clip_len]
        frames = [self._frame(f) for f in frame_ids]
        annotations = [self._annotation(f) for f in frame_ids]
        return frames, [boxes for boxes, _ in annotations], [labels for _, labels in annotations]

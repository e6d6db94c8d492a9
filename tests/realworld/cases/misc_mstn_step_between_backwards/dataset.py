# Source: https://github.com/EasonApolo/mstn/blob/2aaffa9ce98578ce4dfa0b61feb0b55dc9333e9f/dataset.py
# Rebuilt in our own words: the Office-31 domain dataset: image paths and labels read from
# a list file (here named by the domain), each image read with OpenCV, randomly flipped,
# resized to 256 and cropped to 227 when training, mean colour subtracted, made a tensor.
# Plain data: nothing it returns has history.
import cv2
import numpy as np
import torchvision.transforms as tv
from torch.utils import data


class OfficeDomain(data.Dataset):
    def __init__(self, domain, training=True):
        self.images, self.labels = [], []
        self.training = training
        self.crop = 227
        self.mean_color = [104.006, 116.668, 122.678]
        with open(f"data/{domain}_list.txt") as listing:
            for line in listing:
                path, label = line.split()
                self.images.append(path)
                self.labels.append(int(label))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        img = cv2.imread(self.images[index])
        if self.training and np.random.random() < 0.5:
            img = cv2.flip(img, 1)
        img = cv2.resize(img, (256, 256)).astype(np.float32)
        if self.training:
            x, y = np.random.randint(0, 256 - self.crop, 2)
        else:
            x = y = (256 - self.crop) // 2
        img = img[x : x + self.crop, y : y + self.crop] - np.array(self.mean_color)
        return tv.ToTensor()(img), self.labels[index]

# Source: https://github.com/eriklindernoren/PyTorch-GAN/blob/36d3c77e5ff20ebe0aeefd322326a134a279b93e/implementations/cyclegan/datasets.py
# Rebuilt in our own words: the unpaired image dataset: two sorted folders of files, item
# i is file i of A and a random (unaligned) or the i-th file of B, converted to RGB and
# transformed; a dict with keys "A" and "B". Plain data, no graph.
import glob
import os
import random

import torchvision.transforms as transforms
from PIL import Image
from torch.utils.data import Dataset


class ImageDataset(Dataset):
    def __init__(self, root, transforms_=None, unaligned=False, mode="train"):
        self.transform = transforms.Compose(transforms_ or [transforms.ToTensor()])
        self.unaligned = unaligned
        self.files_A = sorted(glob.glob(os.path.join(root, f"{mode}/A") + "/*.*"))
        self.files_B = sorted(glob.glob(os.path.join(root, f"{mode}/B") + "/*.*"))

    def __getitem__(self, index):
        image_A = Image.open(self.files_A[index % len(self.files_A)]).convert("RGB")
        if self.unaligned:
            other = random.randint(0, len(self.files_B) - 1)
        else:
            other = index % len(self.files_B)
        image_B = Image.open(self.files_B[other]).convert("RGB")
        return {"A": self.transform(image_A), "B": self.transform(image_B)}

    def __len__(self):
        return max(len(self.files_A), len(self.files_B))

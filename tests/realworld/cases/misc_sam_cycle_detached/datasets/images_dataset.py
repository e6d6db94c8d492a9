# Source: https://github.com/yuval-alaluf/SAM/blob/c1895aef275e702fba7560284dc16df60d65210e/datasets/images_dataset.py
# Rebuilt in our own words: pairs of source and target images read from two folders
# (sorted), converted and transformed; the source is the target when no source transform
# is given. Plain data.
import os

from PIL import Image
from torch.utils.data import Dataset


def image_paths(root):
    names = sorted(os.listdir(root))
    return [os.path.join(root, n) for n in names if n.lower().endswith((".png", ".jpg", ".jpeg"))]


class ImagesDataset(Dataset):
    def __init__(self, opts, target_transform=None, source_transform=None):
        self.source_paths = image_paths(opts.source_root)
        self.target_paths = image_paths(opts.target_root)
        self.source_transform, self.target_transform = source_transform, target_transform
        self.opts = opts

    def __len__(self):
        return len(self.source_paths)

    def __getitem__(self, index):
        to_im = Image.open(self.target_paths[index]).convert("RGB")
        if self.target_transform:
            to_im = self.target_transform(to_im)
        if self.source_transform:
            from_im = self.source_transform(Image.open(self.source_paths[index]).convert("RGB"))
        else:
            from_im = to_im
        return from_im, to_im

# Source: https://github.com/yuval-alaluf/SAM/blob/c1895aef275e702fba7560284dc16df60d65210e/datasets/augmentations.py
# Rebuilt in our own words: the transform that appends the target age as a constant
# fourth channel (age / 100; "uniform_random" draws an age in [0, 100]); no history.
import numpy as np
import torch


class AgeTransformer:
    def __init__(self, target_age):
        self.target_age = target_age

    def __call__(self, img):
        age = np.random.randint(low=0, high=101) if self.target_age == "uniform_random" else self.target_age
        return torch.cat((img, int(age) / 100 * torch.ones((1, img.shape[1], img.shape[2]))))

# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/data/batch.py
# Rebuilt in our own words: Batch, a record whose keyword arguments become attributes
# (`Batch(act=..., state=...)`): it holds what it is given, tensors with their graph
# included; indexing indexes every field; `append` concatenates field by field.
import numpy as np
import torch


class Batch:
    def __init__(self, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)

    def __getitem__(self, index):
        picked = Batch()
        for key, value in self.__dict__.items():
            if value is not None:
                picked.__dict__[key] = value[index]
        return picked

    def append(self, batch):
        assert isinstance(batch, Batch), "Only append Batch is allowed!"
        for key, value in batch.__dict__.items():
            if value is None:
                continue
            mine = self.__dict__.get(key)
            if mine is None:
                self.__dict__[key] = value
            elif isinstance(value, np.ndarray):
                self.__dict__[key] = np.concatenate([mine, value])
            elif isinstance(value, torch.Tensor):
                self.__dict__[key] = torch.cat([mine, value])
            elif isinstance(value, list):
                self.__dict__[key] = mine + value
            else:
                raise TypeError(f"No support for append with type {type(value)} in class Batch.")

    def __len__(self):
        return min(len(v) for v in self.__dict__.values() if v is not None)

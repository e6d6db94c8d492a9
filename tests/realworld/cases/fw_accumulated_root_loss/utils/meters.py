# Source: https://github.com/microsoft/voxelpose-pytorch/blob/9ef5d407a597c9647b2c8f6c0a246b725a87a054/lib/core/function.py
# Rebuilt in our own words: the running-average meter the repository's train loop keeps its
# logged losses in (defined there beside train_3d; the case imports it from here). It is
# handed plain numbers (`loss.item()`), never tensors.


class AverageMeter:
    """The latest value and the running mean of what it was given."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

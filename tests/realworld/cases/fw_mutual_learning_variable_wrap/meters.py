# Source: https://github.com/chxy95/Deep-Mutual-Learning/blob/650e2767684ec481841581b2ff74bfd88fce1d12/utils.py
# Rebuilt in our own words: the repository's running-average meter (the trainer logs each
# peer's `loss.item()` into one).


class RunningAverage:
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

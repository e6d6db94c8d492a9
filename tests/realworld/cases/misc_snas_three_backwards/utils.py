# Source: https://github.com/SNAS-Series/SNAS-Series/blob/9a43adbdf90d4969b19e448c0d094091bc5efb4f/Analysis/snas/utils.py
# Rebuilt in our own words: the running-average meter the search trainer logs plain
# numbers into (the repository spells it AvgrageMeter).


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.avg = 0
        self.sum = 0
        self.cnt = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.cnt += n
        self.avg = self.sum / self.cnt

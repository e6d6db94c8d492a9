# Source: https://github.com/CuriousAI/mean-teacher/blob/546348ff863c998c26be4339021425df973b4a36/pytorch/mean_teacher/utils.py
# Rebuilt in our own words: the repository's `export` decorator (a registry of the model
# builders in a module's namespace) and the named set of running-average meters the train
# loop logs plain numbers (`loss.item()`) into.
import sys


def export(fn):
    """List `fn` in its module's __all__: the builders `architectures.__dict__[name]` finds."""
    module = sys.modules[fn.__module__]
    if hasattr(module, "__all__"):
        module.__all__.append(fn.__name__)
    else:
        module.__all__ = [fn.__name__]
    return fn


class AverageMeter:
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


class AverageMeterSet:
    def __init__(self):
        self.meters = {}

    def __getitem__(self, key):
        return self.meters[key]

    def update(self, name, value, n=1):
        if name not in self.meters:
            self.meters[name] = AverageMeter()
        self.meters[name].update(value, n)

    def averages(self, postfix="/avg"):
        return {name + postfix: meter.avg for name, meter in self.meters.items()}

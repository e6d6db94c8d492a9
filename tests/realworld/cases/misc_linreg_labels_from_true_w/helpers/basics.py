# Source: https://github.com/zhangyu2234/Deep-learning-by-hand/blob/ebf4aaffc326135b55cb7d8f1db02e40362bc8c3/utils/Common.py
# Rebuilt in our own words: the parts of the repository's helper module the notebook uses — a
# batch loader that is its own iterator (`__iter__` resets a cursor and returns self,
# `__next__` slices the features and the labels it was given by a list of indexes), a
# hand-written SGD update under no_grad, ReLU as an elementwise max with zeros, and the
# squared loss.

from random import shuffle

import torch


class BatchLoader:
    def __init__(self, features, labels, batch_size, shuffle=False):
        self.features = features
        self.labels = labels
        self.batch_size = batch_size
        self.order = list(range(len(self.features)))
        self.shuffle = shuffle

    def __iter__(self):
        self.cursor = 0
        if self.shuffle is True:
            shuffle(self.order)
        return self

    def __next__(self):
        begin = self.cursor
        self.stop = min(begin + self.batch_size, len(self.features))
        if begin >= self.stop:
            raise StopIteration
        self.cursor += self.batch_size
        picked = self.order[begin : self.stop]
        return self.features[picked], self.labels[picked]


def squared_loss(predicted, target):
    return torch.mean((predicted.reshape(target.shape) - target) ** 2 / 2)


def sgd(params, lr, batch_size):
    with torch.no_grad():
        if isinstance(params, list):
            for i in range(len(params)):
                params[i] -= lr * params[i].grad / batch_size
                params[i].grad.zero_()
        else:
            params -= lr * params.grad / batch_size
            params.grad.zero_()


def relu(x):
    zeros = torch.zeros(x.shape)
    return torch.max(zeros, x)

# Source: https://github.com/OpenNMT/OpenNMT-py/blob/908881444a814f7ab05c77c14316a2f05d135960/onmt/utils/statistics.py
# Rebuilt in our own words: the accumulator of loss statistics (summed loss, words, correct
# words, source words, start time) that the loss code builds from `loss.item()` and
# merges with `update`; plain numbers only.
import math
import time


class Statistics:
    def __init__(self, loss=0, n_words=0, n_correct=0):
        self.loss = loss
        self.n_words = n_words
        self.n_correct = n_correct
        self.n_src_words = 0
        self.start_time = time.time()

    def update(self, stat, update_n_src_words=False):
        self.loss += stat.loss
        self.n_words += stat.n_words
        self.n_correct += stat.n_correct
        if update_n_src_words:
            self.n_src_words += stat.n_src_words

    def accuracy(self):
        return 100 * (self.n_correct / self.n_words)

    def ppl(self):
        return math.exp(min(self.loss / self.n_words, 100))

# runnable
# A dataset whose `__iter__` returns a separate iterator object: Python calls that
# object's `__next__` for each element. The features it yields were encoded once, before
# the loop, by a layer with parameters, so each batch reaches that one graph and the
# second iteration's backward raises.
import torch


class Cursor:
    def __init__(self, rows, size):
        self.rows = rows
        self.size = size
        self.at = 0

    def __next__(self):
        if self.at >= len(self.rows):
            raise StopIteration
        chunk = self.rows[self.at : self.at + self.size]
        self.at += self.size
        return chunk


class Table:
    def __init__(self, rows):
        self.rows = rows

    def __iter__(self):
        return Cursor(self.rows, 8)


torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
encoded = encoder(torch.randn(32, 4))
head = torch.nn.Linear(4, 1)
for chunk in Table(encoded):
    head(chunk).pow(2).mean().backward()  # expect: AG001

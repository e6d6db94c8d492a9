# runnable
# A dataset class whose `__iter__` is a generator: iterating it yields slices of the
# features it was given. They were encoded once, before the loop, by a layer with
# parameters, so every slice reaches that one graph: the second backward raises.
import torch


class Shards:
    def __init__(self, rows, size):
        self.rows = rows
        self.size = size

    def __iter__(self):
        for begin in range(0, len(self.rows), self.size):
            yield self.rows[begin : begin + self.size]


torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
encoded = encoder(torch.randn(32, 4))
head = torch.nn.Linear(4, 1)
for shard in Shards(encoded, 8):
    head(shard).pow(2).mean().backward()  # expect: AG001

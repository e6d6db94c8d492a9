# runnable
# The fixed twin of iterator_generator_yields_pre_loop_graph.py: the generator yields
# detached slices of the encoded features (the encoder is not trained here), so each
# backward goes through the head's own fresh graph only.
import torch


class Shards:
    def __init__(self, rows, size):
        self.rows = rows
        self.size = size

    def __iter__(self):
        for begin in range(0, len(self.rows), self.size):
            yield self.rows[begin : begin + self.size].detach()


torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
encoded = encoder(torch.randn(32, 4))
head = torch.nn.Linear(4, 1)
for shard in Shards(encoded, 8):
    head(shard).pow(2).mean().backward()

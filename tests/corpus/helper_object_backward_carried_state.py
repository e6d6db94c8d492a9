# runnable
# The runner gets its chunk scorer from a registry, so nothing here says what the scorer
# is; the scorer back-propagates each chunk itself, and the recurrent state the network
# returns crosses into the next chunk with the graph that backward freed.
import torch
from torch import nn

torch.manual_seed(3)
SCORERS = {}


def register(name):
    def add(cls):
        SCORERS[name] = cls
        return cls

    return add


@register("chunk")
class ChunkScorer:
    def __init__(self, head):
        self.head = head
        self.measure = nn.MSELoss()

    def score_chunk(self, features, target):
        loss = self.measure(self.head(features), target)
        loss.backward()  # expect: AG001
        return loss.item()


class Runner:
    def __init__(self, net, scorer, opt):
        self.net = net
        self.scorer = scorer
        self.opt = opt

    def run(self, series, targets):
        state = torch.zeros(1, 2, 5)
        total = 0.0
        for start in range(0, series.size(0), 4):
            self.opt.zero_grad()
            features, state = self.net(series[start : start + 4], state)
            total += self.scorer.score_chunk(features, targets[start : start + 4])
            self.opt.step()
        return total


net, head = nn.GRU(3, 5), nn.Linear(5, 1)
opt = torch.optim.SGD([*net.parameters(), *head.parameters()], lr=0.05)
runner = Runner(net, SCORERS["chunk"](head), opt)
runner.run(torch.randn(12, 2, 3), torch.randn(12, 2, 1))

# runnable
# A segment model hands its layers' memory out in a @dataclass output record, and the
# training loop feeds `out.memory` back into the next segment's call, with a backward
# per segment. The record keeps what it is built with, so the next segment's loss
# reaches the memory built (and freed) by the previous segment's backward. The
# training function is found by name at run time (a task runner): checked on its own, its
# `net` is the one top-level module class whose forward takes these keywords.
import sys
from dataclasses import dataclass

import torch
from torch import nn

torch.manual_seed(5)


@dataclass
class SegmentResult:
    loss: torch.Tensor
    memory: list | None = None


class MemoryBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Linear(width, width)

    def absorb(self, h, memory):
        return memory + h.mean(0)

    def forward(self, x, memory):
        if memory is None:
            memory = torch.zeros(x.shape[-1])
        h = torch.tanh(self.mix(x))
        return x + h + memory, self.absorb(h, memory)


class SegmentModel(nn.Module):
    def __init__(self, width=6, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([MemoryBlock(width) for _ in range(depth)])
        self.head = nn.Linear(width, 1)

    def forward(self, segment, target, memory=None):
        kept = []
        for i, block in enumerate(self.blocks):
            segment, state = block(segment, memory[i] if memory is not None else None)
            kept.append(state)
        loss = ((self.head(segment) - target) ** 2).mean()
        return SegmentResult(loss=loss, memory=kept)


def fit(net, segments, opt):
    memory = None
    for segment, target in segments:
        out = net(segment=segment, target=target, memory=memory)
        memory = out.memory
        out.loss.backward()  # expect: AG001
    opt.step()
    opt.zero_grad()


if __name__ == "__main__":
    model = SegmentModel()
    data = [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(3)]
    entry = vars(sys.modules[__name__])["fit"]  # found by name at run time, as a task runner does
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        entry(model, data, opt)

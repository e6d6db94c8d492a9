# runnable
# Twin of memory_fed_back_through_output_record.py: the block's update method returns
# the new memory detached, so what the record hands out and the loop feeds back carries
# no graph (the fix from the Infini-attention thread). Same @dataclass output record,
# same nn.ModuleList walked with enumerate, same training function found by name at run
# time. Runs clean.
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
        return (memory + h.mean(0)).detach()

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
        out.loss.backward()
    opt.step()
    opt.zero_grad()


if __name__ == "__main__":
    model = SegmentModel()
    data = [(torch.randn(4, 6), torch.randn(4, 1)) for _ in range(3)]
    entry = vars(sys.modules[__name__])["fit"]  # found by name at run time, as a task runner does
    entry(model, data, torch.optim.SGD(model.parameters(), lr=0.1))

# runnable
# The tracker's memory carries the graph of every earlier step: the second step's
# backward reaches the first step's freed graph through `Memory.kept`. The script
# imports only `Tracker`; it also defines a `Memory` of its own, which `layers.py` never
# sees (its own `Memory` is the one `Tracker` builds).
import torch
from layers import Tracker


class Memory:
    """Unrelated to layers.Memory: a plain record this script keeps its losses in."""

    def __init__(self):
        self.losses = []


log = Memory()
torch.manual_seed(0)
tracker = Tracker(4)
for step in range(3):
    loss = tracker(torch.randn(1, 4))
    loss.backward()  # expect: AG001
    log.losses.append(loss.item())

# runnable
# The fixed twin of train_carried.py: the tracker forgets (detaches) its memory after
# each step's backward, so the next step builds on a tensor without history.
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
    loss.backward()
    tracker.forget()
    log.losses.append(loss.item())

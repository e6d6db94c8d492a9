# runnable: raises "modified by an inplace operation"
# The loop of retain_graph_carried_inplace_error.py inside a training function that the
# `__main__` guard calls: the module-level loop and the function's loop are reached by
# different analysis roots, and both must say the same (AG007, not only AG004): the
# carried state keeps the earlier iteration's graph, retain_graph=True keeps it alive,
# and the optimizer has updated the weights that graph saved.
import torch
import torch.nn as nn


def train(steps):
    torch.manual_seed(18)
    encoder = nn.GRU(2, 4, batch_first=True)
    readout = nn.Linear(4, 1)
    params = [*encoder.parameters(), *readout.parameters()]
    sgd = torch.optim.SGD(params, lr=0.01)
    state = torch.zeros(1, 3, 4)
    for _ in range(steps):
        x, y = torch.randn(3, 6, 2), torch.randn(3, 1)
        seq, state = encoder(x, state)
        loss = ((readout(seq[:, -1]) - y) ** 2).mean()
        sgd.zero_grad()
        loss.backward(retain_graph=True)
        sgd.step()  # expect: AG007


if __name__ == "__main__":
    train(4)

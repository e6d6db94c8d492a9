# runnable
# The fixed twin of retain_graph_carried_inplace_error_in_function.py: the carried state
# is detached before each step's forward, so each backward walks only its own step's graph
# (built after the last optimizer step) and retain_graph=True is no longer needed.
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
        seq, state = encoder(x, state.detach())
        loss = ((readout(seq[:, -1]) - y) ** 2).mean()
        sgd.zero_grad()
        loss.backward()
        sgd.step()


if __name__ == "__main__":
    train(4)

# The fixed twin of partial_init_state_read_in_method_loop.py (a library file's class, no
# code here makes one): the anchor `__init__` keeps is detached, so every step's backward
# goes through that step's graph only. Its runnable form is
# init_state_read_in_method_loop.py with the same `.detach()`.
import torch


class Learner:
    def __init__(self, net):
        self.net = net
        self.optimiser = torch.optim.SGD(net.parameters(), lr=0.1)
        self.anchor = net(torch.ones(1, 4)).tanh().detach()

    def fit(self, batches):
        for x in batches:
            loss = (self.net(x) - self.anchor).pow(2).mean()
            self.optimiser.zero_grad()
            loss.backward()
            self.optimiser.step()

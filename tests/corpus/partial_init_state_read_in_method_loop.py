# The class of init_state_read_in_method_loop.py alone, as a library file holds it: no code
# here makes a Learner. A method runs on an object its class's `__init__` made, so what
# `__init__` keeps on `self` is there before the method's loop.
import torch


class Learner:
    def __init__(self, net):
        self.net = net
        self.optimiser = torch.optim.SGD(net.parameters(), lr=0.1)
        self.anchor = net(torch.ones(1, 4)).tanh()

    def fit(self, batches):
        for x in batches:
            loss = (self.net(x) - self.anchor).pow(2).mean()
            self.optimiser.zero_grad()
            loss.backward()  # expect: AG001
            self.optimiser.step()

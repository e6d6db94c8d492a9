# runnable
# Rebuilt from the multi-agent PPO learner of the real-world yardstick (pymarl-style
# MAPPO, tests/realworld/cases/rl_mappo_advantages_outside_epochs.py) and the Soft-Masked
# BERT corrector: `__init__` builds a tensor with history from the network and keeps it
# on `self`; the training method's loop reads it in every step. The first backward frees
# it; the second step's backward raises.
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


torch.manual_seed(0)
Learner(torch.nn.Linear(4, 2)).fit([torch.randn(3, 4) for _ in range(3)])

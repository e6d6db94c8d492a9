# runnable
"""An algorithm class in the shape of rlpyt's (dreamer-pytorch issue 52): the framework
gives it `self.agent` and calls `optim_initialize()` before `optimize()`, so nothing in
the class calls either. `optim_initialize` is the one method that assigns the optimizers
`optimize` uses: it builds them over `.parameters()` of the agent's submodules, reached as
`model = self.agent.model`. `loss()` returns two losses of one batch; the world-model
optimizer steps before the actor loss is back-propagated, and the actor loss went through
`model.reward` over the actor's imagined features, which saved the reward head's weight:
the step changed it in place."""

from types import SimpleNamespace

import torch
from torch import nn


class Algo:
    def __init__(self, lr=1e-3):
        self.lr = lr

    def optim_initialize(self):
        model = self.agent.model
        self.model_parameters = list(model.encoder.parameters()) + list(model.reward.parameters())
        self.model_optimizer = torch.optim.Adam(self.model_parameters, lr=self.lr)
        self.actor_optimizer = torch.optim.Adam(model.actor.parameters(), lr=self.lr)

    def optimize(self, batches):
        for observation, reward in batches:
            model_loss, actor_loss = self.loss(observation, reward)
            self.model_optimizer.zero_grad()
            model_loss.backward()
            self.model_optimizer.step()  # expect: AG007
            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            self.actor_optimizer.step()

    def loss(self, observation, reward):
        model = self.agent.model
        feature = model.encoder(observation)
        model_loss = (model.reward(feature) - reward).pow(2).mean()
        start = feature.detach()
        imagined = torch.tanh(model.actor(start))
        actor_loss = -model.reward(imagined).mean()
        return model_loss, actor_loss


class WorldModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.reward = nn.Linear(8, 1)
        self.actor = nn.Linear(8, 8)


torch.manual_seed(0)
algo = Algo()
algo.agent = SimpleNamespace(model=WorldModel())
algo.optim_initialize()
algo.optimize([(torch.randn(5, 4), torch.randn(5, 1)) for _ in range(2)])

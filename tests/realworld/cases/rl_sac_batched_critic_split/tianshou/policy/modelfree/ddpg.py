# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/policy/modelfree/ddpg.py
# Rebuilt in our own words: the DDPG policy a SAC subclass builds on. The constructor
# keeps the actor and the critic with a deep-copied target of each (skipped when passed
# None, as SAC does), tau, gamma, the exploration noise and the action range;
# `sync_weight` moves the targets through `.data`; `forward` runs the chosen actor
# on the chosen input, shifts by the action bias, adds Gaussian noise and clamps, and
# returns Batch(act=..., state=...); `learn` is DDPG's critic step then actor step.
from copy import deepcopy

import numpy as np
import torch
import torch.nn.functional as F

from tianshou.data import Batch
from tianshou.policy import BasePolicy


class DDPGPolicy(BasePolicy):
    def __init__(self, actor, actor_optim, critic, critic_optim, tau=0.005, gamma=0.99,
                 exploration_noise=0.1, action_range=None, reward_normalization=False,
                 ignore_done=False, **kwargs):  # fmt: skip
        super().__init__(**kwargs)
        if actor is not None:
            self.actor, self.actor_old = actor, deepcopy(actor)
            self.actor_old.eval()
            self.actor_optim = actor_optim
        if critic is not None:
            self.critic, self.critic_old = critic, deepcopy(critic)
            self.critic_old.eval()
            self.critic_optim = critic_optim
        assert 0 <= tau <= 1 and 0 <= gamma <= 1 and 0 <= exploration_noise
        self._tau, self._gamma, self._eps = tau, gamma, exploration_noise
        assert action_range is not None
        self._range = action_range
        self._action_bias = (action_range[0] + action_range[1]) / 2
        self._action_scale = (action_range[1] - action_range[0]) / 2
        self._rm_done = ignore_done
        self._rew_norm = reward_normalization
        self.__eps = np.finfo(np.float32).eps.item()

    def sync_weight(self):
        for old, new in zip(self.actor_old.parameters(), self.actor.parameters()):
            old.data.copy_(old.data * (1 - self._tau) + new.data * self._tau)
        for old, new in zip(self.critic_old.parameters(), self.critic.parameters()):
            old.data.copy_(old.data * (1 - self._tau) + new.data * self._tau)

    def forward(self, batch, state=None, model="actor", input="obs", eps=None, **kwargs):
        network = getattr(self, model)
        logits, h = network(getattr(batch, input), state=state, info=batch.info)
        logits += self._action_bias
        eps = self._eps if eps is None else eps
        if eps > 0:
            logits += torch.randn(size=logits.shape, device=logits.device) * eps
        return Batch(act=logits.clamp(self._range[0], self._range[1]), state=h)

    def learn(self, batch, **kwargs):
        with torch.no_grad():
            next_act = self(batch, model="actor_old", input="obs_next", eps=0).act
            target_q = self.critic_old(batch.obs_next, next_act)
            rew = torch.tensor(batch.rew, dtype=torch.float, device=target_q.device)[:, None]
            done = torch.tensor(batch.done, dtype=torch.float, device=target_q.device)[:, None]
            target_q = rew + (1.0 - done) * self._gamma * target_q
        critic_loss = F.mse_loss(self.critic(batch.obs, batch.act), target_q)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()
        actor_loss = -self.critic(batch.obs, self(batch, eps=0).act).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
        self.sync_weight()
        return {"loss/actor": actor_loss.item(), "loss/critic": critic_loss.item()}

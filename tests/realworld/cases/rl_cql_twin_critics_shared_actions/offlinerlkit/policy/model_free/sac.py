# Source: https://github.com/yihaosun1124/OfflineRL-Kit/blob/e3ce69793766d02660217d4dfc0af4693a5531bd/offlinerlkit/policy/model_free/sac.py
# Rebuilt in our own words: the parts of the SAC policy a subclass builds on: it keeps the
# actor, both critics and a deep copy of each as the target critic (in eval mode), the
# three optimizers, tau, gamma and alpha (a float, or learned: log-alpha and its
# optimizer, alpha itself kept detached); `actforward` samples a squashed action with
# rsample (it carries the actor's graph) and its log-probability; `_sync_weight` moves
# the target critics towards the critics through `.data` (outside autograd).
from copy import deepcopy

import torch

from offlinerlkit.policy import BasePolicy


class SACPolicy(BasePolicy):
    def __init__(self, actor, critic1, critic2, actor_optim, critic1_optim, critic2_optim,
                 tau=0.005, gamma=0.99, alpha=0.2):  # fmt: skip
        super().__init__()
        self.actor = actor
        self.critic1, self.critic1_old = critic1, deepcopy(critic1)
        self.critic1_old.eval()
        self.critic2, self.critic2_old = critic2, deepcopy(critic2)
        self.critic2_old.eval()
        self.actor_optim = actor_optim
        self.critic1_optim = critic1_optim
        self.critic2_optim = critic2_optim
        self._tau = tau
        self._gamma = gamma
        self._is_auto_alpha = isinstance(alpha, tuple)
        if self._is_auto_alpha:
            self._target_entropy, self._log_alpha, self.alpha_optim = alpha
            self._alpha = self._log_alpha.detach().exp()
        else:
            self._alpha = alpha

    def train(self):
        self.actor.train()
        self.critic1.train()
        self.critic2.train()

    def eval(self):
        self.actor.eval()
        self.critic1.eval()
        self.critic2.eval()

    def _sync_weight(self):
        for old, new in zip(self.critic1_old.parameters(), self.critic1.parameters()):
            old.data.copy_(old.data * (1.0 - self._tau) + new.data * self._tau)
        for old, new in zip(self.critic2_old.parameters(), self.critic2.parameters()):
            old.data.copy_(old.data * (1.0 - self._tau) + new.data * self._tau)

    def actforward(self, obs, deterministic=False):
        dist = self.actor(obs)
        if deterministic:
            squashed_action, raw_action = dist.mode()
        else:
            squashed_action, raw_action = dist.rsample()
        return squashed_action, dist.log_prob(squashed_action, raw_action)

    def select_action(self, obs, deterministic=False):
        with torch.no_grad():
            action, _ = self.actforward(obs, deterministic)
        return action.cpu().numpy()

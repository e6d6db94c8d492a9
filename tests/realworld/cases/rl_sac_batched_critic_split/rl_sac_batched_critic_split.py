# Source: https://github.com/thu-ml/tianshou/issues/37
# Rebuilt in our own words: a SAC policy's learn() runs each critic once on the replay actions and the fresh actor actions stacked together, splits the output into the critic-loss part and the actor-loss part, then updates critic 1, critic 2 and the actor in that order.
# Mechanism: retain_graph on shared forward then optimizer step
from copy import deepcopy

import numpy as np
import torch
import torch.nn.functional as F

from tianshou.data import Batch
from tianshou.policy import DDPGPolicy


class SACPolicy(DDPGPolicy):
    def __init__(self, actor, actor_optim, critic1, critic1_optim, critic2, critic2_optim,
                 tau=0.005, gamma=0.99, alpha=0.2, action_range=None, **kwargs):
        super().__init__(None, None, None, None, tau, gamma, 0, action_range, **kwargs)
        self.actor, self.actor_optim = actor, actor_optim
        self.critic1, self.critic1_old = critic1, deepcopy(critic1)
        self.critic1_optim = critic1_optim
        self.critic2, self.critic2_old = critic2, deepcopy(critic2)
        self.critic2_optim = critic2_optim
        self._alpha = alpha

    def learn(self, batch, **kwargs):
        with torch.no_grad():
            next_result = self(batch, input="obs_next")
            next_act = next_result.act
            dev = next_act.device
            target_q = torch.min(
                self.critic1_old(batch.obs_next, next_act),
                self.critic2_old(batch.obs_next, next_act),
            ) - self._alpha * next_result.log_prob
            rew = torch.tensor(batch.rew, dtype=torch.float, device=dev)[:, None]
            done = torch.tensor(batch.done, dtype=torch.float, device=dev)[:, None]
            target_q = rew + (1.0 - done) * self._gamma * target_q

        obs_result = self(batch)
        new_act = obs_result.act
        both_obs = np.concatenate([batch.obs, batch.obs])
        q1_replay, q1_new = self.critic1(
            both_obs, torch.cat([batch.act, new_act])).split(batch.obs.shape[0])
        q2_replay, q2_new = self.critic2(
            both_obs, torch.cat([batch.act, new_act])).split(batch.obs.shape[0])
        actor_loss = (self._alpha * obs_result.log_prob - torch.min(q1_new, q2_new)).mean()

        critic1_loss = F.mse_loss(q1_replay, target_q)
        self.critic1_optim.zero_grad()
        critic1_loss.backward(retain_graph=True)
        self.critic1_optim.step()

        critic2_loss = F.mse_loss(q2_replay, target_q)
        self.critic2_optim.zero_grad()
        critic2_loss.backward(retain_graph=True)
        self.critic2_optim.step()

        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
        self.sync_weight()
        return {
            "loss/actor": actor_loss.item(),
            "loss/critic1": critic1_loss.item(),
            "loss/critic2": critic2_loss.item(),
        }

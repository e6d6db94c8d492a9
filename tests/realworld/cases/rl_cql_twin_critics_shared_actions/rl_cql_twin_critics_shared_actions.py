# Source: https://github.com/yihaosun1124/OfflineRL-Kit/issues/15
# Rebuilt in our own words: a CQL policy whose conservative penalty helper samples actions from the actor once and scores them with both critics; the two critic losses are then backpropagated one after the other, with retain_graph dropped from the first call as the thread tried.
# Mechanism: shared output two backwards
import numpy as np
import torch
import torch.nn as nn

from offlinerlkit.policy import SACPolicy


class ConservativeSAC(SACPolicy):
    def __init__(self, actor, critic1, critic2, actor_optim, critic1_optim, critic2_optim,
                 action_space, cql_weight=5.0, temperature=1.0, num_repeat_actions=8, **kwargs):
        super().__init__(actor, critic1, critic2, actor_optim, critic1_optim, critic2_optim, **kwargs)
        self.action_space = action_space
        self._cql_weight = cql_weight
        self._temperature = temperature
        self._num_repeat = num_repeat_actions

    def pi_values(self, obs_pi, obs_to_pred):
        act, log_prob = self.actforward(obs_pi)
        q1 = self.critic1(obs_to_pred, act)
        q2 = self.critic2(obs_to_pred, act)
        return q1 - log_prob.detach(), q2 - log_prob.detach()

    def random_values(self, obs, random_act):
        log_density = np.log(0.5 ** random_act.shape[-1])
        return self.critic1(obs, random_act) - log_density, self.critic2(obs, random_act) - log_density

    def learn(self, batch):
        obss, actions, next_obss = batch["observations"], batch["actions"], batch["next_observations"]
        rewards, terminals = batch["rewards"], batch["terminals"]
        batch_size = obss.shape[0]

        a, log_probs = self.actforward(obss)
        actor_loss = (self._alpha * log_probs - torch.min(self.critic1(obss, a), self.critic2(obss, a))).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()

        with torch.no_grad():
            next_actions, _ = self.actforward(next_obss)
            next_q = torch.min(self.critic1_old(next_obss, next_actions),
                               self.critic2_old(next_obss, next_actions))
        target_q = rewards + self._gamma * (1 - terminals) * next_q
        q1, q2 = self.critic1(obss, actions), self.critic2(obss, actions)
        critic1_loss = ((q1 - target_q) ** 2).mean()
        critic2_loss = ((q2 - target_q) ** 2).mean()

        random_actions = torch.empty(batch_size * self._num_repeat, actions.shape[-1]).uniform_(
            self.action_space.low[0], self.action_space.high[0])
        rep_obss = obss.unsqueeze(1).repeat(1, self._num_repeat, 1).view(-1, obss.shape[-1])
        rep_next = next_obss.unsqueeze(1).repeat(1, self._num_repeat, 1).view(-1, obss.shape[-1])
        pi1, pi2 = self.pi_values(rep_obss, rep_obss)
        npi1, npi2 = self.pi_values(rep_next, rep_obss)
        rnd1, rnd2 = self.random_values(rep_obss, random_actions)
        cat_q1 = torch.cat([pi1, npi1, rnd1], 1)
        cat_q2 = torch.cat([pi2, npi2, rnd2], 1)
        conservative1 = torch.logsumexp(cat_q1 / self._temperature, dim=1).mean() * self._cql_weight \
            * self._temperature - q1.mean() * self._cql_weight
        conservative2 = torch.logsumexp(cat_q2 / self._temperature, dim=1).mean() * self._cql_weight \
            * self._temperature - q2.mean() * self._cql_weight

        critic1_loss = critic1_loss + conservative1
        critic2_loss = critic2_loss + conservative2

        self.critic1_optim.zero_grad()
        critic1_loss.backward()
        self.critic1_optim.step()

        self.critic2_optim.zero_grad()
        critic2_loss.backward()
        self.critic2_optim.step()

        self._sync_weight()
        return {"loss/actor": actor_loss.item(), "loss/critic1": critic1_loss.item(),
                "loss/critic2": critic2_loss.item()}

# Source: https://github.com/thu-ml/tianshou/issues/37
# Rebuilt in our own words: a SAC policy's learn() runs each critic once on the replay actions and the fresh actor actions stacked together, splits the output into the critic-loss part and the actor-loss part, then updates critic 1, critic 2 and the actor in that order.
# Mechanism: retain_graph on shared forward then optimizer step
# (tianshou 0.2's Batch / DDPGPolicy are replaced by small stand-ins written here; the learn() body keeps the library's pre-fix order.)
from copy import deepcopy
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Normal

torch.manual_seed(0)
np.random.seed(0)
OBS, ACT, N = 5, 2, 16


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(OBS, 2 * ACT)

    def forward(self, obs):
        mu, log_std = self.net(torch.as_tensor(obs, dtype=torch.float)).chunk(2, -1)
        return mu, log_std.clamp(-5, 2).exp()


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS + ACT, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, obs, act):
        obs = torch.as_tensor(obs, dtype=torch.float)
        return self.net(torch.cat([obs, act], -1))


class SACPolicy:
    def __init__(
        self,
        actor,
        actor_optim,
        critic1,
        critic1_optim,
        critic2,
        critic2_optim,
        tau=0.005,
        gamma=0.99,
        alpha=0.2,
    ):
        self.actor, self.actor_optim = actor, actor_optim
        self.critic1, self.critic1_old = critic1, deepcopy(critic1)
        self.critic1_optim = critic1_optim
        self.critic2, self.critic2_old = critic2, deepcopy(critic2)
        self.critic2_optim = critic2_optim
        self._tau, self._gamma, self._alpha = tau, gamma, alpha

    def __call__(self, batch, input="obs"):
        mu, sigma = self.actor(getattr(batch, input))
        dist = Normal(mu, sigma)
        x = dist.rsample()
        act = torch.tanh(x)
        log_prob = (dist.log_prob(x) - torch.log(1 - act.pow(2) + 1e-6)).sum(-1, keepdim=True)
        return SimpleNamespace(act=act, log_prob=log_prob)

    def sync_weight(self):
        for old, new in ((self.critic1_old, self.critic1), (self.critic2_old, self.critic2)):
            for o, n in zip(old.parameters(), new.parameters()):
                o.data.copy_(o.data * (1 - self._tau) + n.data * self._tau)

    def learn(self, batch, **kwargs):
        with torch.no_grad():
            next_result = self(batch, input="obs_next")
            next_act = next_result.act
            target_q = (
                torch.min(
                    self.critic1_old(batch.obs_next, next_act),
                    self.critic2_old(batch.obs_next, next_act),
                )
                - self._alpha * next_result.log_prob
            )
            rew = torch.tensor(batch.rew, dtype=torch.float)[:, None]
            done = torch.tensor(batch.done, dtype=torch.float)[:, None]
            target_q = rew + (1.0 - done) * self._gamma * target_q

        obs_result = self(batch)
        new_act = obs_result.act
        both_obs = np.concatenate([batch.obs, batch.obs])
        q1_replay, q1_new = self.critic1(both_obs, torch.cat([batch.act, new_act])).split(
            batch.obs.shape[0]
        )
        q2_replay, q2_new = self.critic2(both_obs, torch.cat([batch.act, new_act])).split(
            batch.obs.shape[0]
        )
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
        actor_loss.backward()  # realworld: fails
        self.actor_optim.step()
        self.sync_weight()
        return {
            "loss/actor": actor_loss.item(),
            "loss/critic1": critic1_loss.item(),
            "loss/critic2": critic2_loss.item(),
        }


actor, critic1, critic2 = Actor(), Critic(), Critic()
policy = SACPolicy(
    actor,
    torch.optim.Adam(actor.parameters(), 1e-3),
    critic1,
    torch.optim.Adam(critic1.parameters(), 1e-3),
    critic2,
    torch.optim.Adam(critic2.parameters(), 1e-3),
)


def sample_batch():
    return SimpleNamespace(
        obs=np.random.randn(N, OBS).astype(np.float32),
        obs_next=np.random.randn(N, OBS).astype(np.float32),
        act=torch.rand(N, ACT) * 2 - 1,
        rew=np.random.randn(N).astype(np.float32),
        done=np.zeros(N, dtype=np.float32),
    )


for it in range(3):
    losses = policy.learn(sample_batch())

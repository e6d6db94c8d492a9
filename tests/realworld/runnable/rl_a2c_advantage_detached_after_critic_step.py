# Source: https://github.com/MrSyee/pg-is-all-you-need/pull/3
# Rebuilt in our own words: a one-step A2C agent for Pendulum whose select_action() keeps the action's log-prob in self.transition; update_model() fits the critic first, then builds the advantage from the same critic outputs with .detach() and updates the actor with the stored log-prob.
# Mechanism: detached after critic step
# (gym is not used: a tiny random environment stands in for Pendulum.)

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Normal

torch.manual_seed(0)
np.random.seed(0)


class _Box:
    def __init__(self, n):
        self.shape = (n,)


class TinyPendulum:
    observation_space = _Box(3)
    action_space = _Box(1)

    def reset(self):
        self.t = 0
        return np.random.randn(3).astype(np.float32), {}

    def step(self, action):
        self.t += 1
        return (
            np.random.randn(3).astype(np.float32),
            float(-np.square(action).sum()),
            False,
            self.t >= 5,
            {},
        )


class Actor(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.hidden = nn.Linear(in_dim, 8)
        self.mu = nn.Linear(8, out_dim)
        self.log_std = nn.Linear(8, out_dim)

    def forward(self, state):
        x = F.relu(self.hidden(state))
        mu = torch.tanh(self.mu(x)) * 2
        std = F.softplus(self.log_std(x)) + 1e-3
        dist = Normal(mu, std)
        return dist.sample(), dist


class Critic(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        self.hidden = nn.Linear(in_dim, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, state):
        return self.out(F.relu(self.hidden(state)))


class A2CAgent:
    def __init__(self, env, gamma=0.9, entropy_weight=1e-2):
        self.env = env
        self.gamma = gamma
        self.entropy_weight = entropy_weight
        obs_dim = env.observation_space.shape[0]
        act_dim = env.action_space.shape[0]
        self.actor = Actor(obs_dim, act_dim)
        self.critic = Critic(obs_dim)
        self.actor_optimizer = optim.Adam(self.actor.parameters(), lr=1e-4)
        self.critic_optimizer = optim.Adam(self.critic.parameters(), lr=1e-3)
        self.transition = []

    def select_action(self, state):
        state = torch.FloatTensor(state)
        action, dist = self.actor(state)
        self.transition = [state, dist.log_prob(action).sum(dim=-1)]
        return action.clamp(-2.0, 2.0).detach().numpy()

    def step(self, action):
        next_state, reward, terminated, truncated, _ = self.env.step(action)
        done = terminated or truncated
        self.transition.extend([next_state, reward, done])
        return next_state, reward, done

    def update_model(self) -> tuple[float, float]:
        state, log_prob, next_state, reward, done = self.transition
        mask = 1 - done
        next_state = torch.FloatTensor(next_state)
        pred_value = self.critic(state)
        targ_value = reward + self.gamma * self.critic(next_state) * mask
        value_loss = F.smooth_l1_loss(pred_value, targ_value.detach())
        self.critic_optimizer.zero_grad()
        value_loss.backward()
        self.critic_optimizer.step()

        advantage = (targ_value - pred_value).detach()
        policy_loss = -advantage * log_prob
        policy_loss += self.entropy_weight * -log_prob
        self.actor_optimizer.zero_grad()
        policy_loss.backward()
        self.actor_optimizer.step()
        return policy_loss.item(), value_loss.item()

    def train(self, num_frames):
        state, _ = self.env.reset()
        losses = []
        for frame in range(1, num_frames + 1):
            action = self.select_action(state)
            next_state, reward, done = self.step(action)
            losses.append(self.update_model())
            state = next_state
            if done:
                state, _ = self.env.reset()
        return losses


env = TinyPendulum()
agent = A2CAgent(env)
agent.train(num_frames=12)

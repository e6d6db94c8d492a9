# Source: https://github.com/pytorch/examples/issues/151
# Rebuilt in our own words: the REINFORCE example, changed to keep an experience pool of (log-prob, return) pairs across episodes and to call finish_episode() several times per episode on random samples from that pool.
# Mechanism: replay buffer stores graph tensors
# (gym is not used: a tiny random environment stands in for CartPole.)
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

GAMMA = 0.97
SAMPLE_SIZE = 64
UPDATES_PER_EPISODE = 3


class TinyEnv:
    def reset(self):
        self.t = 0
        return np.random.randn(4).astype(np.float32), {}

    def step(self, action):
        self.t += 1
        obs = np.random.randn(4).astype(np.float32)
        return obs, 1.0, self.t >= 8, False, {}


env = TinyEnv()


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 16)
        self.out = nn.Linear(16, 2)
        self.step_log_probs = []
        self.step_rewards = []
        self.pool = []

    def forward(self, x):
        return F.softmax(self.out(F.relu(self.hidden(x))), dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=3e-3)


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    dist = Categorical(policy(state))
    action = dist.sample()
    policy.step_log_probs.append(dist.log_prob(action))
    return action.item()


def store_episode():
    returns, running = [], 0.0
    for r in reversed(policy.step_rewards):
        running = r + GAMMA * running
        returns.insert(0, running)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    policy.pool.extend(zip(policy.step_log_probs, returns))
    del policy.step_log_probs[:]
    del policy.step_rewards[:]


def finish_episode():
    batch = random.sample(policy.pool, min(SAMPLE_SIZE, len(policy.pool)))
    policy_loss = torch.cat([-log_prob * ret for log_prob, ret in batch]).sum()
    optimizer.zero_grad()
    policy_loss.backward()  # realworld: fails
    optimizer.step()


def main():
    for i_episode in range(1, 4):
        state, _ = env.reset()
        for t in range(1, 50):
            action = select_action(state)
            state, reward, terminated, truncated, _ = env.step(action)
            policy.step_rewards.append(reward)
            if terminated or truncated:
                break
        store_episode()
        for _ in range(UPDATES_PER_EPISODE):
            finish_episode()


if __name__ == "__main__":
    main()

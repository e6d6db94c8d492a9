"""One-step actor-critic on a toy contextual bandit, with separate networks.

The actor's advantage uses `value.detach()`, so the actor loss does not reach the
critic's graph; the two backward() calls in a step walk disjoint graphs.
"""

import torch
from torch import nn

torch.manual_seed(0)

STATE, ACTIONS, BATCH = 6, 3, 16
actor = nn.Sequential(nn.Linear(STATE, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
critic = nn.Sequential(nn.Linear(STATE, 32), nn.Tanh(), nn.Linear(32, 1))
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
payoff = torch.randn(STATE, ACTIONS)

for step in range(5):
    states = torch.randn(BATCH, STATE)
    dist = torch.distributions.Categorical(logits=actor(states))
    actions = dist.sample()
    rewards = (states @ payoff).gather(1, actions.unsqueeze(1)).squeeze(1)
    value = critic(states).squeeze(1)

    advantage = rewards - value.detach()
    actor_loss = -(dist.log_prob(actions) * advantage).mean()
    critic_loss = nn.functional.mse_loss(value, rewards)

    actor_optimizer.zero_grad()
    critic_optimizer.zero_grad()
    actor_loss.backward()
    critic_loss.backward()
    actor_optimizer.step()
    critic_optimizer.step()

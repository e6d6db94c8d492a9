# runnable
# DQN-ish toy: I store encoded states in a replay list and sample from it for the
# TD loss. Works for one step then blows up with the graph-a-second-time error.
import random

import torch
import torch.nn as nn

torch.manual_seed(5)
random.seed(5)

encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
q_head = nn.Linear(16, 4)
opt = torch.optim.Adam([*encoder.parameters(), *q_head.parameters()], lr=1e-3)
replay = []

obs = torch.randn(8)
for step in range(10):
    state = encoder(obs)
    action = q_head(state).argmax().item()
    reward = random.random()
    next_obs = torch.randn(8)
    replay.append((state, action, reward))
    obs = next_obs

    batch = random.sample(replay, min(len(replay), 4))
    states = torch.stack([s for s, _, _ in batch])
    actions = torch.tensor([a for _, a, _ in batch])
    rewards = torch.tensor([r for _, _, r in batch])
    q = q_head(states).gather(1, actions[:, None]).squeeze(1)
    td_loss = nn.functional.smooth_l1_loss(q, rewards)
    opt.zero_grad()
    td_loss.backward()  # expect: AG001
    opt.step()

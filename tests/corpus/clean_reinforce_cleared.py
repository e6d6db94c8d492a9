# runnable
# REINFORCE where the episode buffers are cleared after every update.
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(35)
policy = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
log_probs, rewards = [], []

for episode in range(4):
    obs = torch.randn(4)
    for t in range(6):
        dist = Categorical(logits=policy(obs))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(float(action.item() == 1))
        obs = torch.randn(4)
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    log_probs.clear()
    rewards.clear()

# runnable
# REINFORCE on a toy bandit-like episode. The first episode updates fine, the
# second one dies in policy_loss.backward().
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(21)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Linear(4, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return torch.softmax(self.affine(x), dim=-1)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)


def select_action(state):
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(gamma=0.99):
    R, returns = 0.0, []
    for r in reversed(policy.rewards):
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    policy_loss = torch.stack([-lp * G for lp, G in zip(policy.saved_log_probs, returns)]).sum()
    optimizer.zero_grad()
    policy_loss.backward()  # expect: AG001
    optimizer.step()
    del policy.rewards[:]


for episode in range(3):
    state = torch.randn(4)
    for t in range(5):
        action = select_action(state)
        policy.rewards.append(1.0 if action == 0 else 0.0)
        state = torch.randn(4)
    finish_episode()

# runnable
# Recurrent agent. reset() is called at the start of the episode, step() every
# time step, and I update after every step (online actor-critic style).
import torch
import torch.nn as nn


class RecurrentAgent(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=16):
        super().__init__()
        self.core = nn.GRUCell(obs_dim, hidden)
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, 1)
        self.hidden_size = hidden

    def reset(self):
        self.state = torch.zeros(1, self.hidden_size)

    def step(self, obs):
        self.state = self.core(obs, self.state)
        return self.policy(self.state), self.value(self.state)


torch.manual_seed(7)
agent = RecurrentAgent(obs_dim=5, n_actions=3)
optimizer = torch.optim.RMSprop(agent.parameters(), lr=7e-4)

agent.reset()
for t in range(12):
    obs = torch.randn(1, 5)
    logits, value = agent.step(obs)
    dist = torch.distributions.Categorical(logits=logits)
    action = dist.sample()
    reward = torch.randn(1)
    advantage = reward - value.squeeze(1)
    loss = -(dist.log_prob(action) * advantage.detach()).mean() + advantage.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

"""Actor-critic with one network that returns both the policy logits and the value.

The policy loss and the value loss are back-propagated one after the other, but
both come from the same shared trunk: the policy loss's backward() frees the
trunk's graph, and the value loss's backward() needs it.
"""

import torch
from torch import nn

torch.manual_seed(0)

STATE, ACTIONS, BATCH, VALUE_COEF = 6, 3, 16, 0.5


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(STATE, 64), nn.Tanh())
        self.policy = nn.Linear(64, ACTIONS)
        self.value = nn.Linear(64, 1)

    def forward(self, states):
        features = self.trunk(states)
        return self.policy(features), self.value(features).squeeze(-1)


net = ActorCritic()
optimizer = torch.optim.Adam(net.parameters(), lr=7e-4)
payoff = torch.randn(STATE, ACTIONS)

for update in range(5):
    states = torch.randn(BATCH, STATE)
    logits, values = net(states)
    dist = torch.distributions.Categorical(logits=logits)
    actions = dist.sample()
    returns = (states @ payoff).gather(1, actions.unsqueeze(1)).squeeze(1)

    policy_loss = -(dist.log_prob(actions) * (returns - values.detach())).mean()
    value_loss = VALUE_COEF * (returns - values).pow(2).mean()

    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()  # expect: AG002
    optimizer.step()

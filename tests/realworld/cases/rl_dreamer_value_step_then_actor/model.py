# Source: https://github.com/cross32768/Dreamer_PyTorch/blob/0402b35c7324cb50dba1120fdd64d382042a6725/model.py
# Rebuilt in our own words: Dreamer's networks. The image encoder (four strided
# convolutions to a 1024 vector); the recurrent state-space model (a GRU cell over state
# and action, a Normal prior over the next state from the recurrent hidden state, a
# Normal posterior that also reads the embedded observation; `prior` returns the Normal
# and the new hidden state); the observation decoder; reward and value heads on (state,
# hidden); the action model, a tanh-squashed reparametrised Normal sample (rsample: it
# carries the graph of the state it reads). All stateless. Fewer hidden layers per head
# than the repository's.
import numpy as np
import torch
from torch import nn
from torch.distributions import Normal
from torch.nn import functional as F


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(3, 32, 4, stride=2), nn.Conv2d(32, 64, 4, stride=2),
                                    nn.Conv2d(64, 128, 4, stride=2), nn.Conv2d(128, 256, 4, stride=2)])  # fmt: skip

    def forward(self, obs):
        hidden = obs
        for conv in self.convs:
            hidden = F.relu(conv(hidden))
        return hidden.reshape(hidden.size(0), -1)


class RecurrentStateSpaceModel(nn.Module):
    def __init__(self, state_dim, action_dim, rnn_hidden_dim, hidden_dim=200, min_stddev=0.1, act=F.elu):
        super().__init__()
        self.fc_state_action = nn.Linear(state_dim + action_dim, hidden_dim)
        self.fc_rnn_hidden = nn.Linear(rnn_hidden_dim, hidden_dim)
        self.fc_prior = nn.Linear(hidden_dim, 2 * state_dim)
        self.fc_rnn_hidden_embedded_obs = nn.Linear(rnn_hidden_dim + 1024, hidden_dim)
        self.fc_posterior = nn.Linear(hidden_dim, 2 * state_dim)
        self.rnn = nn.GRUCell(hidden_dim, rnn_hidden_dim)
        self._min_stddev = min_stddev
        self.act = act

    def forward(self, state, action, rnn_hidden, embedded_next_obs):
        prior, rnn_hidden = self.prior(state, action, rnn_hidden)
        return prior, self.posterior(rnn_hidden, embedded_next_obs), rnn_hidden

    def _normal(self, layer, hidden):
        mean, raw = layer(hidden).chunk(2, dim=1)
        return Normal(mean, F.softplus(raw) + self._min_stddev)

    def prior(self, state, action, rnn_hidden):
        hidden = self.act(self.fc_state_action(torch.cat([state, action], dim=1)))
        rnn_hidden = self.rnn(hidden, rnn_hidden)
        return self._normal(self.fc_prior, self.act(self.fc_rnn_hidden(rnn_hidden))), rnn_hidden

    def posterior(self, rnn_hidden, embedded_obs):
        hidden = self.act(self.fc_rnn_hidden_embedded_obs(torch.cat([rnn_hidden, embedded_obs], dim=1)))
        return self._normal(self.fc_posterior, hidden)


class ObservationModel(nn.Module):
    def __init__(self, state_dim, rnn_hidden_dim):
        super().__init__()
        self.fc = nn.Linear(state_dim + rnn_hidden_dim, 1024)
        self.deconvs = nn.ModuleList([nn.ConvTranspose2d(1024, 128, 5, stride=2),
                                      nn.ConvTranspose2d(128, 64, 5, stride=2),
                                      nn.ConvTranspose2d(64, 32, 6, stride=2)])  # fmt: skip
        self.last = nn.ConvTranspose2d(32, 3, 6, stride=2)

    def forward(self, state, rnn_hidden):
        hidden = self.fc(torch.cat([state, rnn_hidden], dim=1)).view(-1, 1024, 1, 1)
        for deconv in self.deconvs:
            hidden = F.relu(deconv(hidden))
        return self.last(hidden)


class ScalarHead(nn.Module):
    """A two-layer MLP from (state, hidden) to one number: the reward and value models."""

    def __init__(self, state_dim, rnn_hidden_dim, hidden_dim=400, act=F.elu):
        super().__init__()
        self.fc1 = nn.Linear(state_dim + rnn_hidden_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, hidden_dim)
        self.out = nn.Linear(hidden_dim, 1)
        self.act = act

    def forward(self, state, rnn_hidden):
        hidden = self.act(self.fc1(torch.cat([state, rnn_hidden], dim=1)))
        return self.out(self.act(self.fc2(hidden)))


class RewardModel(ScalarHead):
    pass


class ValueModel(ScalarHead):
    pass


class ActionModel(nn.Module):
    def __init__(self, state_dim, rnn_hidden_dim, action_dim, hidden_dim=400, act=F.elu,
                 min_stddev=1e-4, init_stddev=5.0):  # fmt: skip
        super().__init__()
        self.fc1 = nn.Linear(state_dim + rnn_hidden_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, hidden_dim)
        self.fc_mean = nn.Linear(hidden_dim, action_dim)
        self.fc_stddev = nn.Linear(hidden_dim, action_dim)
        self.act = act
        self.min_stddev = min_stddev
        self.init_stddev = np.log(np.exp(init_stddev) - 1)

    def forward(self, state, rnn_hidden, training=True):
        hidden = self.act(self.fc2(self.act(self.fc1(torch.cat([state, rnn_hidden], dim=1)))))
        mean = 5.0 * torch.tanh(self.fc_mean(hidden) / 5.0)
        stddev = F.softplus(self.fc_stddev(hidden) + self.init_stddev) + self.min_stddev
        if training:
            return torch.tanh(Normal(mean, stddev).rsample())
        return torch.tanh(mean)

# Source: https://github.com/cross32768/Dreamer_PyTorch/issues/2
# Rebuilt in our own words: Dreamer training script that imagines trajectories with the action model, computes lambda-return targets from the value model, updates the value model with retain_graph=True and steps its optimizer, then backpropagates the action loss through the same lambda returns.
# Mechanism: optimizer step between backwards of retained graph
# (the repo's model.py / utils.py are replaced by tiny stand-ins written here; the training step keeps the posted order.)
import argparse

import numpy as np
import torch
from torch import nn
from torch.distributions import Normal
from torch.distributions.kl import kl_divergence
from torch.nn.functional import mse_loss, softplus
from torch.nn.utils import clip_grad_norm_
from torch.optim import Adam

torch.manual_seed(0)
np.random.seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3 * 4 * 4, 10)

    def forward(self, obs):
        return torch.relu(self.fc(obs.flatten(1)))


class RecurrentStateSpaceModel(nn.Module):
    def __init__(self, state_dim, action_dim, rnn_hidden_dim):
        super().__init__()
        self.fc_in = nn.Linear(state_dim + action_dim, rnn_hidden_dim)
        self.rnn = nn.GRUCell(rnn_hidden_dim, rnn_hidden_dim)
        self.fc_prior = nn.Linear(rnn_hidden_dim, 2 * state_dim)
        self.fc_post = nn.Linear(rnn_hidden_dim + 10, 2 * state_dim)

    @staticmethod
    def _dist(stats):
        mean, raw = stats.chunk(2, -1)
        return Normal(mean, softplus(raw) + 0.1)

    def prior(self, state, action, rnn_hidden):
        rnn_hidden = self.rnn(torch.relu(self.fc_in(torch.cat([state, action], -1))), rnn_hidden)
        return self._dist(self.fc_prior(rnn_hidden)), rnn_hidden

    def forward(self, state, action, rnn_hidden, embedded_next_obs):
        prior, rnn_hidden = self.prior(state, action, rnn_hidden)
        posterior = self._dist(self.fc_post(torch.cat([rnn_hidden, embedded_next_obs], -1)))
        return prior, posterior, rnn_hidden


class _Head(nn.Module):
    def __init__(self, state_dim, rnn_hidden_dim, out_dim):
        super().__init__()
        self.fc = nn.Linear(state_dim + rnn_hidden_dim, out_dim)

    def forward(self, state, rnn_hidden):
        return self.fc(torch.cat([state, rnn_hidden], -1))


class ObservationModel(_Head):
    def __init__(self, state_dim, rnn_hidden_dim):
        super().__init__(state_dim, rnn_hidden_dim, 3 * 4 * 4)


class RewardModel(_Head):
    def __init__(self, state_dim, rnn_hidden_dim):
        super().__init__(state_dim, rnn_hidden_dim, 1)


class ValueModel(_Head):
    def __init__(self, state_dim, rnn_hidden_dim):
        super().__init__(state_dim, rnn_hidden_dim, 1)


class ActionModel(_Head):
    def forward(self, state, rnn_hidden):
        return torch.tanh(super().forward(state, rnn_hidden))


class ReplayBuffer:
    def __init__(self, capacity, observation_shape, action_dim):
        self.observation_shape, self.action_dim = observation_shape, action_dim

    def sample(self, batch_size, chunk_length):
        obs = np.random.rand(batch_size, chunk_length, *self.observation_shape).astype(np.float32)
        act = np.random.uniform(-1, 1, (batch_size, chunk_length, self.action_dim)).astype(
            np.float32
        )
        rew = np.random.randn(batch_size, chunk_length, 1).astype(np.float32)
        return obs, act, rew, np.zeros((batch_size, chunk_length, 1), dtype=bool)


def preprocess_obs(obs):
    return obs - 0.5


def lambda_return(rewards, values, gamma, lambda_):
    horizon = rewards.shape[0]
    returns = [values[-1]]
    for t in reversed(range(horizon - 1)):
        returns.append(rewards[t] + gamma * ((1 - lambda_) * values[t + 1] + lambda_ * returns[-1]))
    return torch.stack(returns[::-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state-dim", type=int, default=4)
    parser.add_argument("--rnn-hidden-dim", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=3)
    parser.add_argument("--chunk-length", type=int, default=5)
    parser.add_argument("--imagination-horizon", type=int, default=3)
    parser.add_argument("--updates", type=int, default=2)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lambda_", type=float, default=0.95)
    parser.add_argument("--clip-grad-norm", type=float, default=100)
    parser.add_argument("--free-nats", type=float, default=3)
    args = parser.parse_args([])

    replay_buffer = ReplayBuffer(capacity=200000, observation_shape=(3, 4, 4), action_dim=2)
    encoder = Encoder()
    rssm = RecurrentStateSpaceModel(args.state_dim, 2, args.rnn_hidden_dim)
    obs_model = ObservationModel(args.state_dim, args.rnn_hidden_dim)
    reward_model = RewardModel(args.state_dim, args.rnn_hidden_dim)
    model_params = (
        list(encoder.parameters())
        + list(rssm.parameters())
        + list(obs_model.parameters())
        + list(reward_model.parameters())
    )
    model_optimizer = Adam(model_params, lr=6e-4)
    value_model = ValueModel(args.state_dim, args.rnn_hidden_dim)
    action_model = ActionModel(args.state_dim, args.rnn_hidden_dim, 2)
    value_optimizer = Adam(value_model.parameters(), lr=8e-5)
    action_optimizer = Adam(action_model.parameters(), lr=8e-5)

    for update_step in range(args.updates):
        observations, actions, rewards, _ = replay_buffer.sample(args.batch_size, args.chunk_length)
        observations = torch.as_tensor(preprocess_obs(observations)).transpose(0, 1)
        actions = torch.as_tensor(actions).transpose(0, 1)
        rewards = torch.as_tensor(rewards).transpose(0, 1)

        embedded = encoder(observations.reshape(-1, 3, 4, 4)).view(
            args.chunk_length, args.batch_size, -1
        )
        state = torch.zeros(args.batch_size, args.state_dim)
        rnn_hidden = torch.zeros(args.batch_size, args.rnn_hidden_dim)
        states, rnn_hiddens, kl_loss = [], [], 0
        for l in range(args.chunk_length - 1):
            prior, posterior, rnn_hidden = rssm(state, actions[l], rnn_hidden, embedded[l + 1])
            state = posterior.rsample()
            states.append(state)
            rnn_hiddens.append(rnn_hidden)
            kl_loss += kl_divergence(prior, posterior).sum(dim=1).clamp(min=args.free_nats).mean()
        kl_loss /= args.chunk_length - 1
        flat_states = torch.stack(states).view(-1, args.state_dim)
        flat_hiddens = torch.stack(rnn_hiddens).view(-1, args.rnn_hidden_dim)
        recon = obs_model(flat_states, flat_hiddens).view(
            args.chunk_length - 1, args.batch_size, 3, 4, 4
        )
        pred_rewards = reward_model(flat_states, flat_hiddens).view(
            args.chunk_length - 1, args.batch_size, 1
        )
        obs_loss = 0.5 * mse_loss(recon, observations[1:], reduction="none").mean([0, 1]).sum()
        reward_loss = 0.5 * mse_loss(pred_rewards, rewards[:-1])
        model_loss = kl_loss + obs_loss + reward_loss
        model_optimizer.zero_grad()
        model_loss.backward()
        clip_grad_norm_(model_params, args.clip_grad_norm)
        model_optimizer.step()

        flat_states = flat_states.detach()
        flat_hiddens = flat_hiddens.detach()
        imag_states, imag_hiddens = [flat_states], [flat_hiddens]
        for h in range(args.imagination_horizon):
            imag_actions = action_model(flat_states, flat_hiddens)
            prior, flat_hiddens = rssm.prior(flat_states, imag_actions, flat_hiddens)
            flat_states = prior.rsample()
            imag_states.append(flat_states)
            imag_hiddens.append(flat_hiddens)
        imag_states = torch.stack(imag_states).view(-1, args.state_dim)
        imag_hiddens = torch.stack(imag_hiddens).view(-1, args.rnn_hidden_dim)
        imag_rewards = reward_model(imag_states, imag_hiddens).view(
            args.imagination_horizon + 1, -1
        )
        imag_values = value_model(imag_states, imag_hiddens).view(args.imagination_horizon + 1, -1)
        lambda_target = lambda_return(imag_rewards, imag_values, args.gamma, args.lambda_)

        value_loss = 0.5 * mse_loss(imag_values, lambda_target.detach())
        value_optimizer.zero_grad()
        value_loss.backward(retain_graph=True)
        clip_grad_norm_(value_model.parameters(), args.clip_grad_norm)
        value_optimizer.step()

        action_loss = -1 * lambda_target.mean()
        action_optimizer.zero_grad()
        action_loss.backward()  # realworld: fails
        clip_grad_norm_(action_model.parameters(), args.clip_grad_norm)
        action_optimizer.step()


if __name__ == "__main__":
    main()

# Source: https://github.com/cross32768/Dreamer_PyTorch/issues/2
# Rebuilt in our own words: Dreamer training script that imagines trajectories with the action model, computes lambda-return targets from the value model, updates the value model with retain_graph=True and steps its optimizer, then backpropagates the action loss through the same lambda returns.
# Mechanism: optimizer step between backwards of retained graph
import argparse

import torch
from torch.distributions.kl import kl_divergence
from torch.nn.functional import mse_loss
from torch.nn.utils import clip_grad_norm_
from torch.optim import Adam

from model import Encoder, RecurrentStateSpaceModel, ObservationModel, RewardModel, ValueModel, ActionModel
from utils import ReplayBuffer, preprocess_obs, lambda_return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state-dim", type=int, default=32)
    parser.add_argument("--rnn-hidden-dim", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=40)
    parser.add_argument("--chunk-length", type=int, default=40)
    parser.add_argument("--imagination-horizon", type=int, default=12)
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lambda_", type=float, default=0.95)
    parser.add_argument("--clip-grad-norm", type=float, default=100)
    parser.add_argument("--free-nats", type=float, default=3)
    args = parser.parse_args()

    replay_buffer = ReplayBuffer(capacity=200000, observation_shape=(3, 64, 64), action_dim=6)
    encoder = Encoder()
    rssm = RecurrentStateSpaceModel(args.state_dim, 6, args.rnn_hidden_dim)
    obs_model = ObservationModel(args.state_dim, args.rnn_hidden_dim)
    reward_model = RewardModel(args.state_dim, args.rnn_hidden_dim)
    model_params = (list(encoder.parameters()) + list(rssm.parameters())
                    + list(obs_model.parameters()) + list(reward_model.parameters()))
    model_optimizer = Adam(model_params, lr=6e-4)
    value_model = ValueModel(args.state_dim, args.rnn_hidden_dim)
    action_model = ActionModel(args.state_dim, args.rnn_hidden_dim, 6)
    value_optimizer = Adam(value_model.parameters(), lr=8e-5)
    action_optimizer = Adam(action_model.parameters(), lr=8e-5)

    for update_step in range(args.updates):
        observations, actions, rewards, _ = replay_buffer.sample(args.batch_size, args.chunk_length)
        observations = torch.as_tensor(preprocess_obs(observations)).transpose(0, 1)
        actions = torch.as_tensor(actions).transpose(0, 1)
        rewards = torch.as_tensor(rewards).transpose(0, 1)

        embedded = encoder(observations.reshape(-1, 3, 64, 64)).view(args.chunk_length, args.batch_size, -1)
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
        recon = obs_model(flat_states, flat_hiddens).view(args.chunk_length - 1, args.batch_size, 3, 64, 64)
        pred_rewards = reward_model(flat_states, flat_hiddens).view(args.chunk_length - 1, args.batch_size, 1)
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
        imag_rewards = reward_model(imag_states, imag_hiddens).view(args.imagination_horizon + 1, -1)
        imag_values = value_model(imag_states, imag_hiddens).view(args.imagination_horizon + 1, -1)
        lambda_target = lambda_return(imag_rewards, imag_values, args.gamma, args.lambda_)

        value_loss = 0.5 * mse_loss(imag_values, lambda_target.detach())
        value_optimizer.zero_grad()
        value_loss.backward(retain_graph=True)
        clip_grad_norm_(value_model.parameters(), args.clip_grad_norm)
        value_optimizer.step()

        action_loss = -1 * lambda_target.mean()
        action_optimizer.zero_grad()
        action_loss.backward()
        clip_grad_norm_(action_model.parameters(), args.clip_grad_norm)
        action_optimizer.step()


if __name__ == "__main__":
    main()

# Source: https://github.com/kimhc6028/pytorch-noreward-rl/issues/1
# Rebuilt in our own words: an A3C worker with a curiosity (ICM) head: each rollout re-wraps the LSTM state from the previous rollout's data, collects policy/value outputs and ICM inverse/forward predictions, then backpropagates the ICM loss with retain_graph=True and the A3C loss with a second plain backward before one optimizer step.
# Mechanism: retain_graph on first of two passes
import torch
import torch.nn.functional as F
import torch.optim as optim

import env_wrapper
from model import ActorCritic


def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad


def train(rank, args, shared_model, optimizer=None):
    torch.manual_seed(args.seed + rank)
    env = env_wrapper.create_doom(args.record, outdir=args.outdir)
    n_actions = env.action_space.n
    model = ActorCritic(env.observation_space.shape[0], env.action_space)
    if optimizer is None:
        optimizer = optim.Adam(shared_model.parameters(), lr=args.lr)
    model.train()

    state = torch.from_numpy(env.reset())
    done = True
    episode_length = 0
    while True:
        episode_length += 1
        model.load_state_dict(shared_model.state_dict())
        if done:
            cx = torch.zeros(1, 256)
            hx = torch.zeros(1, 256)
        else:
            cx = cx.data
            hx = hx.data
        values, log_probs, rewards, entropies = [], [], [], []
        inverses, forwards, actions, next_feats = [], [], [], []

        for step in range(args.num_steps):
            value, logit, (hx, cx) = model((state.unsqueeze(0), (hx, cx)), icm=False)
            prob = F.softmax(logit, dim=1)
            log_prob = F.log_softmax(logit, dim=1)
            entropies.append(-(log_prob * prob).sum(1))
            action = prob.multinomial(1).data
            log_probs.append(log_prob.gather(1, action))

            onehot = torch.zeros(1, n_actions).scatter_(1, action, 1)
            prev_state = state
            state, reward, done, _ = env.step(action.item())
            state = torch.from_numpy(state)
            done = done or episode_length >= args.max_episode_length

            next_feat, inverse, forward = model((prev_state.unsqueeze(0), state.unsqueeze(0), onehot), icm=True)
            curiosity = args.eta * (next_feat - forward).pow(2).sum(1) / 2.0
            reward = max(min(reward, 1), -1) + curiosity.data.item()
            if done:
                episode_length = 0
                state = torch.from_numpy(env.reset())

            values.append(value)
            rewards.append(reward)
            actions.append(onehot)
            inverses.append(inverse)
            forwards.append(forward)
            next_feats.append(next_feat)
            if done:
                break

        R = torch.zeros(1, 1)
        if not done:
            value, _, _ = model((state.unsqueeze(0), (hx, cx)), icm=False)
            R = value.data
        values.append(R)

        policy_loss, value_loss, inverse_loss, forward_loss = 0, 0, 0, 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(rewards))):
            R = args.gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = rewards[i] + args.gamma * values[i + 1].data - values[i].data
            gae = gae * args.gamma * args.tau + delta_t
            policy_loss = policy_loss - log_probs[i] * gae - 0.01 * entropies[i]
            inverse_loss = inverse_loss - (actions[i] * torch.log(inverses[i] + 1e-15)).sum(1)
            forward_loss = forward_loss + 0.5 * (forwards[i] - next_feats[i]).pow(2).sum(1)

        optimizer.zero_grad()
        ((1 - args.beta) * inverse_loss + args.beta * forward_loss).backward(retain_graph=True)
        (args.lmbda * (policy_loss + 0.5 * value_loss)).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 40)
        ensure_shared_grads(model, shared_model)
        optimizer.step()

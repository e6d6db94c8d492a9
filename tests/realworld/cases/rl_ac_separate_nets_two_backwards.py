# Source: https://github.com/bentrevett/pytorch-rl/issues/2
# Rebuilt in our own words: tutorial actor-critic on CartPole where an ActorCritic wrapper holds two independent MLPs; after each episode update_policy() calls policy_loss.backward() and then value_loss.backward() with no retain_graph, followed by one optimizer step.
# Mechanism: two backwards over disjoint graphs
import gym
import numpy as np
import torch
import torch.distributions as distributions
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

train_env = gym.make("CartPole-v1")


class MLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, dropout=0.3):
        super().__init__()
        self.fc_1 = nn.Linear(input_dim, hidden_dim)
        self.fc_2 = nn.Linear(hidden_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.fc_2(F.relu(self.dropout(self.fc_1(x))))


class ActorCritic(nn.Module):
    def __init__(self, actor, critic):
        super().__init__()
        self.actor = actor
        self.critic = critic

    def forward(self, state):
        return self.actor(state), self.critic(state)


policy = ActorCritic(MLP(4, 64, 2), MLP(4, 64, 1))
optimizer = optim.Adam(policy.parameters(), lr=0.005)


def calculate_returns(rewards, discount_factor, normalize=True):
    returns, R = [], 0
    for r in reversed(rewards):
        R = r + R * discount_factor
        returns.insert(0, R)
    returns = torch.tensor(returns)
    if normalize:
        returns = (returns - returns.mean()) / returns.std()
    return returns


def update_policy(returns, log_prob_actions, values, optimizer):
    returns = returns.detach()
    policy_loss = -(returns * log_prob_actions).sum()
    value_loss = F.smooth_l1_loss(returns, values).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    optimizer.step()
    return policy_loss.item(), value_loss.item()


def train(env, policy, optimizer, discount_factor):
    policy.train()
    log_prob_actions, values, rewards = [], [], []
    done = False
    state, _ = env.reset()
    while not done:
        state = torch.FloatTensor(state).unsqueeze(0)
        action_pred, value_pred = policy(state)
        dist = distributions.Categorical(F.softmax(action_pred, dim=-1))
        action = dist.sample()
        state, reward, terminated, truncated, _ = env.step(action.item())
        done = terminated or truncated
        log_prob_actions.append(dist.log_prob(action))
        values.append(value_pred)
        rewards.append(reward)
    log_prob_actions = torch.cat(log_prob_actions)
    values = torch.cat(values).squeeze(-1)
    returns = calculate_returns(rewards, discount_factor)
    return update_policy(returns, log_prob_actions, values, optimizer)


for episode in range(1, 501):
    policy_loss, value_loss = train(train_env, policy, optimizer, 0.99)
    if episode % 10 == 0:
        print(f"| Episode: {episode:3} | policy {policy_loss:.3f} | value {value_loss:.3f} |")

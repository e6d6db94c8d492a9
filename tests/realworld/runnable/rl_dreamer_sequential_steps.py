# Source: https://github.com/juliusfrost/dreamer-pytorch/issues/52
# Rebuilt in our own words: a Dreamer algorithm class whose loss() method returns the world-model, actor and value losses of one batch; optimize_agent() then runs backward and optimizer step for each loss in turn, world model first.
# Mechanism: optimizer step before backward of pending graph
# (rlpyt and the repo's model modules are replaced by a tiny world model written here.)
import numpy as np
import torch
from torch import nn
from torch.distributions import Normal

torch.manual_seed(0)
OBS, ACT, STOCH, DETER = 6, 2, 4, 8


class TinyWorldModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.observation_encoder = nn.Linear(OBS, 8)
        self.representation = nn.Linear(DETER + 8, 2 * STOCH)
        self.transition = nn.GRUCell(STOCH + ACT, DETER)
        self.prior_head = nn.Linear(DETER, 2 * STOCH)
        self.observation_decoder = nn.Linear(STOCH + DETER, OBS)
        self.reward_model = nn.Linear(STOCH + DETER, 1)
        self.value_model = nn.Linear(STOCH + DETER, 1)
        self.action_decoder = nn.Linear(STOCH + DETER, ACT)

    @staticmethod
    def dist(stats):
        mean, raw_std = stats.chunk(2, -1)
        return Normal(mean, nn.functional.softplus(raw_std) + 0.1)

    def rollout_representation(self, embed, action):
        batch = embed.shape[1]
        stoch, deter = torch.zeros(batch, STOCH), torch.zeros(batch, DETER)
        feats, priors, posts = [], [], []
        for t in range(embed.shape[0]):
            deter = self.transition(torch.cat([stoch, action[t]], -1), deter)
            prior = self.dist(self.prior_head(deter))
            post = self.dist(self.representation(torch.cat([deter, embed[t]], -1)))
            stoch = post.rsample()
            feats.append(torch.cat([stoch, deter], -1))
            priors.append(prior)
            posts.append(post)
        return torch.stack(feats), priors, posts

    def rollout_policy(self, horizon, start_feat):
        stoch, deter = start_feat[:, :STOCH], start_feat[:, STOCH:]
        feats = []
        for _ in range(horizon):
            act = torch.tanh(self.action_decoder(torch.cat([stoch, deter], -1)))
            deter = self.transition(torch.cat([stoch, act], -1), deter)
            stoch = self.dist(self.prior_head(deter)).rsample()
            feats.append(torch.cat([stoch, deter], -1))
        return torch.stack(feats)


class DreamerAlgo:
    def __init__(self, model, train_steps=2, horizon=4, discount=0.99, discount_lambda=0.95):
        self.model = model
        self.train_steps = train_steps
        self.horizon = horizon
        self.discount = discount
        self.discount_lambda = discount_lambda

    def optim_initialize(self):
        m = self.model
        self.model_parameters = (
            list(m.observation_encoder.parameters())
            + list(m.observation_decoder.parameters())
            + list(m.reward_model.parameters())
            + list(m.representation.parameters())
            + list(m.transition.parameters())
            + list(m.prior_head.parameters())
        )
        self.actor_parameters = list(m.action_decoder.parameters())
        self.value_parameters = list(m.value_model.parameters())
        self.model_optimizer = torch.optim.Adam(self.model_parameters, lr=5e-4)
        self.actor_optimizer = torch.optim.Adam(self.actor_parameters, lr=1e-4)
        self.value_optimizer = torch.optim.Adam(self.value_parameters, lr=1e-4)

    def optimize_agent(self):
        for i in range(self.train_steps):
            observation = torch.randn(5, 3, OBS)
            action = torch.randn(5, 3, ACT)
            reward = torch.randn(5, 3, 1)
            model_loss, actor_loss, value_loss = self.loss(observation, action, reward)

            self.model_optimizer.zero_grad()
            model_loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model_parameters, 100.0)
            self.model_optimizer.step()

            self.actor_optimizer.zero_grad()
            actor_loss.backward()  # realworld: fails
            torch.nn.utils.clip_grad_norm_(self.actor_parameters, 100.0)
            self.actor_optimizer.step()

            self.value_optimizer.zero_grad()
            value_loss.backward()
            torch.nn.utils.clip_grad_norm_(self.value_parameters, 100.0)
            self.value_optimizer.step()

    def loss(self, observation, action, reward):
        model = self.model
        batch_t, batch_b = observation.shape[:2]
        embed = model.observation_encoder(observation)
        feat, priors, posts = model.rollout_representation(embed, action)

        image_loss = -Normal(model.observation_decoder(feat), 1.0).log_prob(observation).mean()
        reward_loss = -Normal(model.reward_model(feat), 1.0).log_prob(reward).mean()
        div = torch.stack(
            [torch.distributions.kl.kl_divergence(p, q).mean() for p, q in zip(posts, priors)]
        ).mean()
        div = torch.clamp(div, -float("inf"), 3.0)
        model_loss = div + reward_loss + image_loss * np.prod(observation.shape[-1:])

        with torch.no_grad():
            flat_post = feat.reshape(batch_t * batch_b, -1)
        imag_feat = model.rollout_policy(self.horizon, flat_post)
        imag_reward = model.reward_model(imag_feat)
        value = model.value_model(imag_feat)
        discount_arr = self.discount * torch.ones_like(imag_reward)
        returns = self.lambda_return(imag_reward[:-1], value[:-1], discount_arr[:-1], value[-1])
        discount = torch.cumprod(discount_arr[:-1], 0)
        actor_loss = -torch.mean(discount * returns)

        with torch.no_grad():
            value_feat = imag_feat[:-1].detach()
            value_target = returns.detach()
            value_discount = discount.detach()
        value_pred = Normal(model.value_model(value_feat), 1.0)
        value_loss = -torch.mean(value_discount * value_pred.log_prob(value_target))
        return model_loss, actor_loss, value_loss

    def lambda_return(self, reward, value, discount, bootstrap):
        next_values = torch.cat([value[1:], bootstrap[None]], 0)
        target = reward + discount * next_values * (1 - self.discount_lambda)
        outputs, acc = [], bootstrap
        for t in reversed(range(reward.shape[0])):
            acc = target[t] + discount[t] * self.discount_lambda * acc
            outputs.append(acc)
        return torch.stack(outputs[::-1], 0)


algo = DreamerAlgo(TinyWorldModel())
algo.optim_initialize()
algo.optimize_agent()

# Source: https://github.com/juliusfrost/dreamer-pytorch/issues/52
# Rebuilt in our own words: a Dreamer algorithm class whose loss() method returns the world-model, actor and value losses of one batch; optimize_agent() then runs backward and optimizer step for each loss in turn, world model first.
# Mechanism: optimizer step before backward of pending graph
import numpy as np
import torch
from rlpyt.algos.base import RlAlgorithm
from rlpyt.utils.buffer import buffer_to, buffer_method
from tqdm import tqdm

from dreamer.models.rnns import get_feat, get_dist


class DreamerAlgo(RlAlgorithm):
    def __init__(self, batch_size=16, batch_length=40, train_steps=80, horizon=12,
                 model_lr=5e-4, actor_lr=1e-4, value_lr=1e-4, grad_clip=100.0,
                 discount=0.99, discount_lambda=0.95, free_nats=3.0):
        super().__init__()
        self.batch_size = batch_size
        self.batch_length = batch_length
        self.train_steps = train_steps
        self.horizon = horizon
        self.model_lr, self.actor_lr, self.value_lr = model_lr, actor_lr, value_lr
        self.grad_clip = grad_clip
        self.discount = discount
        self.discount_lambda = discount_lambda
        self.free_nats = free_nats

    def optim_initialize(self, rank=0):
        model = self.agent.model
        self.model_parameters = (list(model.observation_encoder.parameters())
                                 + list(model.observation_decoder.parameters())
                                 + list(model.reward_model.parameters())
                                 + list(model.representation.parameters())
                                 + list(model.transition.parameters()))
        self.actor_parameters = list(model.action_decoder.parameters())
        self.value_parameters = list(model.value_model.parameters())
        self.model_optimizer = torch.optim.Adam(self.model_parameters, lr=self.model_lr)
        self.actor_optimizer = torch.optim.Adam(self.actor_parameters, lr=self.actor_lr)
        self.value_optimizer = torch.optim.Adam(self.value_parameters, lr=self.value_lr)

    def optimize_agent(self, itr, samples=None, sampler_itr=None):
        for i in tqdm(range(self.train_steps), desc="Imagination"):
            batch = self.replay_buffer.sample_batch(self.batch_size, self.batch_length)
            observation = batch.all_observation[:-1]
            action = batch.all_action[1:]
            reward = batch.all_reward[1:].unsqueeze(2)
            inputs = buffer_to((observation, action, reward), self.agent.device)
            model_loss, actor_loss, value_loss = self.loss(*inputs)

            self.model_optimizer.zero_grad()
            model_loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model_parameters, self.grad_clip)
            self.model_optimizer.step()

            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            torch.nn.utils.clip_grad_norm_(self.actor_parameters, self.grad_clip)
            self.actor_optimizer.step()

            self.value_optimizer.zero_grad()
            value_loss.backward()
            torch.nn.utils.clip_grad_norm_(self.value_parameters, self.grad_clip)
            self.value_optimizer.step()

    def loss(self, observation, action, reward):
        model = self.agent.model
        batch_t, batch_b = observation.shape[:2]
        observation = observation.float() / 255.0 - 0.5
        embed = model.observation_encoder(observation)
        prev_state = model.representation.initial_state(batch_b, device=action.device)
        post, prior = model.rollout.rollout_representation(batch_t, embed, action, prev_state)

        feat = get_feat(post)
        image_loss = -model.observation_decoder(feat).log_prob(observation).mean()
        reward_loss = -model.reward_model(feat).log_prob(reward).mean()
        div = torch.distributions.kl.kl_divergence(get_dist(post), get_dist(prior)).mean()
        div = torch.clamp(div, -float("inf"), self.free_nats)
        model_loss = div + reward_loss + image_loss * np.prod(observation.shape[-3:])

        with torch.no_grad():
            flat_post = buffer_method(post, "reshape", batch_t * batch_b, -1)
        imag_dist, _ = model.rollout.rollout_policy(self.horizon, model.policy, flat_post)
        imag_feat = get_feat(imag_dist)
        imag_reward = model.reward_model(imag_feat).mean
        value = model.value_model(imag_feat).mean
        discount_arr = self.discount * torch.ones_like(imag_reward)
        returns = self.lambda_return(imag_reward[:-1], value[:-1], discount_arr[:-1], value[-1])
        discount = torch.cumprod(discount_arr[:-1], 0)
        actor_loss = -torch.mean(discount * returns)

        with torch.no_grad():
            value_feat = imag_feat[:-1].detach()
            value_target = returns.detach()
            value_discount = discount.detach()
        value_pred = model.value_model(value_feat)
        value_loss = -torch.mean(value_discount * value_pred.log_prob(value_target).unsqueeze(2))
        return model_loss, actor_loss, value_loss

    def lambda_return(self, reward, value, discount, bootstrap):
        next_values = torch.cat([value[1:], bootstrap[None]], 0)
        target = reward + discount * next_values * (1 - self.discount_lambda)
        outputs, acc = [], bootstrap
        for t in reversed(range(reward.shape[0])):
            acc = target[t] + discount[t] * self.discount_lambda * acc
            outputs.append(acc)
        return torch.stack(outputs[::-1], 0)

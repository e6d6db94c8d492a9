# Source: https://github.com/cross32768/Dreamer_PyTorch/blob/0402b35c7324cb50dba1120fdd64d382042a6725/utils.py
# Rebuilt in our own words: the sequence replay buffer (numpy arrays of uint8 images,
# actions, rewards and done flags; `sample` draws chunks that do not cross an episode
# end), the image normalisation to [-0.5, 0.5], and the lambda target of the value
# function (the repository's `lambda_target`; the script imports it as
# `lambda_return`): a lambda-weighted sum of n-step returns, each written into a zeros
# tensor by slice assignment, so the result carries the graph of the rewards and values.
import numpy as np
import torch


class ReplayBuffer:
    def __init__(self, capacity, observation_shape, action_dim):
        self.capacity = capacity
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.uint8)
        self.actions = np.zeros((capacity, action_dim), dtype=np.float32)
        self.rewards = np.zeros((capacity, 1), dtype=np.float32)
        self.done = np.zeros((capacity, 1), dtype=bool)
        self.index = 0
        self.is_filled = False

    def push(self, observation, action, reward, done):
        self.observations[self.index] = observation
        self.actions[self.index] = action
        self.rewards[self.index] = reward
        self.done[self.index] = done
        self.is_filled = self.is_filled or self.index == self.capacity - 1
        self.index = (self.index + 1) % self.capacity

    def sample(self, batch_size, chunk_length):
        borders = np.where(self.done)[0]
        picked = []
        for _ in range(batch_size):
            while True:
                first = np.random.randint(len(self) - chunk_length + 1)
                last = first + chunk_length - 1
                if not np.logical_and(first <= borders, borders < last).any():
                    break
            picked += list(range(first, last + 1))

        def chunks(array, *shape):
            return array[picked].reshape(batch_size, chunk_length, *shape)

        return (chunks(self.observations, *self.observations.shape[1:]),
                chunks(self.actions, self.actions.shape[1]), chunks(self.rewards, 1),
                chunks(self.done, 1))  # fmt: skip

    def __len__(self):
        return self.capacity if self.is_filled else self.index


def preprocess_obs(obs):
    return obs.astype(np.float32) / 255.0 - 0.5


def lambda_return(rewards, values, gamma, lambda_):
    target = torch.zeros_like(rewards)
    horizon = rewards.shape[0] - 1
    n_step = torch.zeros_like(rewards)
    n_step[horizon] = values[horizon]
    for n in range(1, horizon + 1):
        n_step[:-n] = (gamma**n) * values[n:]  # bootstrap from the value n steps on
        for k in range(1, n + 1):
            if k == n:
                n_step[:-n] += (gamma ** (n - 1)) * rewards[k:]
            else:
                n_step[:-n] += (gamma ** (k - 1)) * rewards[k : -n + k]
        if n == horizon:
            target += (lambda_ ** (horizon - 1)) * n_step
        else:
            target += (1 - lambda_) * (lambda_ ** (n - 1)) * n_step
    return target

# Source: https://github.com/kimhc6028/pytorch-noreward-rl/blob/b0cfb5b58509f2b1555671e18b9cee0230fc2a55/env_wrapper.py
# Rebuilt in our own words: the Doom environment the worker plays (gym's My Way Home with
# the minimal discrete actions) wrapped so each observation is the stack of the last four
# grey 42x42 frames scaled to [0, 1] (numpy arrays: no history).
from collections import deque

import gym
import numpy as np
from gym.spaces.box import Box
from PIL import Image


class BufferedObsEnv(gym.ObservationWrapper):
    def __init__(self, env=None, n=4, skip=4, shape=(84, 84)):
        super().__init__(env)
        self.obs_shape = shape
        self.recent = deque(maxlen=2)
        self.n, self.skip, self.counter = n, skip, 0
        self.buffer = deque(maxlen=n)
        self.observation_space = Box(0.0, 1.0, (n,) + shape)

    def _grey(self, obs):
        self.recent.append(obs)
        brightest = np.max(np.stack(self.recent), axis=0)
        luma = np.sum(brightest * [0.299, 0.587, 0.114], axis=2) if brightest.ndim == 3 else brightest
        small = Image.fromarray(luma.astype(np.uint8)).resize(self.obs_shape, resample=Image.BILINEAR)
        return np.array(small, dtype=np.uint8)

    def observation(self, obs):
        self.counter += 1
        frame = self._grey(obs)
        if self.counter % self.skip == 0:
            self.buffer.append(frame)
        return np.stack(self.buffer, axis=0).astype(np.float32) / 255.0

    def reset(self, **kwargs):
        self.recent.clear()
        frame = self._grey(self.env.reset(**kwargs))
        self.buffer.clear()
        self.counter = 0
        for _ in range(self.n - 1):
            self.buffer.append(np.zeros_like(frame))
        self.buffer.append(frame)
        return np.stack(self.buffer, axis=0).astype(np.float32) / 255.0


def create_doom(record=False, outdir=None):
    from ppaquette_gym_doom import wrappers

    env = gym.make("ppaquette/DoomMyWayHome-v0")
    env = wrappers.SetPlayingMode("algo")(wrappers.SetResolution("160x120")(wrappers.ToDiscrete("minimal")(env)))
    if record:
        env = gym.wrappers.Monitor(env, outdir, force=True)
    env.seed(None)
    return BufferedObsEnv(env, skip=1, shape=(42, 42))

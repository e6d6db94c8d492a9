# Source: https://github.com/yihaosun1124/OfflineRL-Kit/blob/e3ce69793766d02660217d4dfc0af4693a5531bd/offlinerlkit/policy/base_policy.py
# Rebuilt in our own words: the abstract policy, an nn.Module whose subclasses define
# train/eval, action selection and `learn(batch)`.
import torch.nn as nn


class BasePolicy(nn.Module):
    def __init__(self):
        super().__init__()

    def select_action(self, obs, deterministic=False):
        raise NotImplementedError

    def learn(self, batch):
        raise NotImplementedError

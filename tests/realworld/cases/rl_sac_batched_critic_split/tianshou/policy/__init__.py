# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/policy/__init__.py
# Rebuilt in our own words: the policy package, reduced to the base class and DDPG (the
# repository's also lists imitation, DQN, PG, A2C, PPO, TD3 and SAC).
from tianshou.policy.base import BasePolicy
from tianshou.policy.modelfree.ddpg import DDPGPolicy

__all__ = ["BasePolicy", "DDPGPolicy"]

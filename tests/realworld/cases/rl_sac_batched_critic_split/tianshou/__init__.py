# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/__init__.py
# Rebuilt in our own words: the package entry point, reduced to the subpackages the
# policy uses (the repository's also imports env, utils, trainer and exploration).
from tianshou import data, policy

__version__ = "0.2.1"
__all__ = ["data", "policy"]

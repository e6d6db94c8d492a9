# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/policy/modelfree/__init__.py
# The repository's model-free policies package marker.

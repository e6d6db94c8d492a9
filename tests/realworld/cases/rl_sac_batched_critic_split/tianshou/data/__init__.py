# Source: https://github.com/thu-ml/tianshou/blob/8812eaa5020ff3c7c84322cfccbf1c99d7210fc8/tianshou/data/__init__.py
# Rebuilt in our own words: the data package, reduced to Batch (the repository's also
# exports its replay buffers and collector).
from tianshou.data.batch import Batch

__all__ = ["Batch"]

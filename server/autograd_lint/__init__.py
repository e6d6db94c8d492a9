"""autograd-lint: find PyTorch autograd graph-lifetime bugs before they run."""

__version__ = "0.1.0"

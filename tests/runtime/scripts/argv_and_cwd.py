"""Checks it runs like `python argv_and_cwd.py`: its folder as cwd and sys.path[0]."""

import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
assert os.getcwd() == here, os.getcwd()
assert os.path.abspath(sys.path[0]) == here, sys.path[0]
assert __name__ == "__main__"
print("args", sys.argv[1:])
import fixture_helper  # noqa: E402 - importable only from the script's own folder

weights = torch.randn(3, requires_grad=True)
(weights * fixture_helper.SCALE).sum().backward()

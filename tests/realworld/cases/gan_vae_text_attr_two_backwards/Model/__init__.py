# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/blob/dfb95ccb6833321930cc08004eeffbeaf71082ed/Model/__init__.py
# The repository's Model package marker.

# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/blob/dfb95ccb6833321930cc08004eeffbeaf71082ed/utils.py
# Rebuilt in our own words: move a tensor or module to the GPU when asked and one exists.
from torch import cuda


def check_cuda(value, use_cuda=False):
    if use_cuda and cuda.is_available():
        return value.cuda()
    return value

# Source: https://github.com/facebookresearch/pytorch_GAN_zoo/blob/b75dee40918caabb4fe7ec561522717bf096a8cb/models/utils/utils.py
# Rebuilt in our own words: `finiteCheck`, which the trainer calls on the generator's
# parameters between its backward and its step: every infinite or NaN entry of a gradient
# that exists is set to zero in place, through `.grad.data` (outside autograd).
import torch


def isinf(tensor):
    return tensor.abs() == float("inf")


def isnan(tensor):
    return tensor != tensor


def finiteCheck(parameters):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    for p in [p for p in parameters if p.grad is not None]:
        p.grad.data[isinf(p.grad.data)] = 0
        p.grad.data[isnan(p.grad.data)] = 0

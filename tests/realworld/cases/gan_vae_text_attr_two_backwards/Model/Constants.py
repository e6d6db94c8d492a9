# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/blob/dfb95ccb6833321930cc08004eeffbeaf71082ed/Model/Constants.py
# The special token indexes of the vocabulary.
PAD = 0
UNK = 1
BOS = 2
EOS = 3

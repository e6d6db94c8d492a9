# Source: https://github.com/CuriousAI/mean-teacher/blob/546348ff863c998c26be4339021425df973b4a36/pytorch/mean_teacher/ramps.py
# Rebuilt in our own words: the sigmoid-shaped ramp-up of the consistency weight, a plain
# float from the epoch number (exp(-5 (1 - t/T)^2), 1 once the ramp is over).
import numpy as np


def sigmoid_rampup(current, rampup_length):
    if rampup_length == 0:
        return 1.0
    current = np.clip(current, 0.0, rampup_length)
    phase = 1.0 - current / rampup_length
    return float(np.exp(-5.0 * phase * phase))

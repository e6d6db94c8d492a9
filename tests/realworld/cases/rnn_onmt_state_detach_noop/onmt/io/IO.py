# Source: https://github.com/OpenNMT/OpenNMT-py/blob/a5b76e4439d7547d194faa405b49942274e72a50/onmt/io/IO.py
# Rebuilt in our own words: `make_features(batch, side)`: the batch's source or target
# word indexes (the first element when the field is a (data, lengths) tuple) stacked with
# its feature fields `<side>_feat_*` along a new last axis. Index tensors: no history.
import torch


def make_features(batch, side, data_type="text"):
    assert side in ["src", "tgt"]
    fields = batch.__dict__
    data = fields[side][0] if isinstance(fields[side], tuple) else fields[side]
    prefix = side + "_feat_"
    levels = [data] + [fields[key] for key in sorted(k for k in fields if prefix in k)]
    if data_type == "text":
        return torch.cat([level.unsqueeze(2) for level in levels], 2)
    return levels[0]

# Source: https://github.com/hijkzzz/pymarl2/blob/8ccac7c5aa134422a2e3009be735d23cdf8ce2f8/src/components/episode_buffer.py
# Rebuilt in our own words: the parts of the episode batch a learner reads: the batch
# size, the longest episode's length, the device, and the tensors of each field by name
# (`batch["reward"]`, per episode and time step), filled by the runner with plain data.
# (Its schemes, groups, preprocessing, slicing and the prioritised buffer are left out.)
import torch as th


class EpisodeBatch:
    def __init__(self, scheme, groups, batch_size, max_seq_length, data=None, device="cpu"):
        self.scheme = scheme.copy()
        self.groups = groups
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.device = device
        self.data = data if data is not None else {}
        for field, info in self.scheme.items():
            if field not in self.data:
                shape = (batch_size, max_seq_length, *info.get("group_shape", ()), *info["vshape"])
                self.data[field] = th.zeros(shape, dtype=info.get("dtype", th.float32), device=device)

    def __getitem__(self, item):
        if item not in self.data:
            raise ValueError(item)
        return self.data[item]

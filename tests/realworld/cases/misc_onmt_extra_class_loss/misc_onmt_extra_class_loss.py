# Source: https://github.com/OpenNMT/OpenNMT-py/issues/2153
# Rebuilt in our own words: a user adds a classification head on the Transformer encoder for joint learning and backpropagates its loss inside OpenNMT's loss-compute __call__, before the library's sharded NMT loss runs its own backward through the decoder
# Mechanism: shared output two backwards
import torch
import torch.nn as nn

import onmt


def split_state(state, shard_size=None):
    for k, v in state.items():
        if shard_size is None:
            yield k, v
        if v is not None:
            pieces = []
            if isinstance(v, torch.Tensor):
                for chunk in torch.split(v, shard_size):
                    chunk = chunk.data.clone()
                    chunk.requires_grad = v.requires_grad
                    pieces.append(chunk)
            yield k, (v, pieces)


def shards(state, shard_size, eval_only=False):
    if eval_only:
        yield split_state(state)
    else:
        non_none = dict(split_state(state, shard_size))
        keys, values = zip(*((k, list(pieces)) for k, (_, pieces) in non_none.items()))
        for shard_tensors in zip(*values):
            yield dict(zip(keys, shard_tensors))
        variables = []
        for k, (v, pieces) in non_none.items():
            if isinstance(v, torch.Tensor) and state[k].requires_grad:
                variables.extend(zip(torch.split(state[k], shard_size), [c.grad for c in pieces]))
        inputs, grads = zip(*variables)
        torch.autograd.backward(inputs, grads)


class JointLossCompute(nn.Module):
    def __init__(self, criterion, generator, class_criterion, class_weight=0.3):
        super().__init__()
        self.criterion = criterion
        self.generator = generator
        self.class_criterion = class_criterion
        self.class_weight = class_weight

    def _compute_class_loss(self, class_logits, class_refs):
        loss = self.class_weight * self.class_criterion(class_logits, class_refs)
        return loss, onmt.utils.Statistics(loss.item(), class_refs.numel(), 0)

    def _compute_loss(self, batch, output, target):
        scores = self.generator(output.view(-1, output.size(2)))
        loss = self.criterion(scores, target.view(-1))
        return loss, onmt.utils.Statistics(loss.item(), target.numel(), 0)

    def __call__(self, batch, output, class_logits, normalization, shard_size=32):
        batch_stats = onmt.utils.Statistics()
        class_loss, class_stats = self._compute_class_loss(class_logits, batch.class_labels)
        class_loss.backward()
        batch_stats.update(class_stats)

        shard_state = {"output": output, "target": batch.tgt[1:, :, 0]}
        for shard in shards(shard_state, shard_size):
            loss, stats = self._compute_loss(batch, **shard)
            loss.div(float(normalization)).backward()
            batch_stats.update(stats)
        return None, batch_stats

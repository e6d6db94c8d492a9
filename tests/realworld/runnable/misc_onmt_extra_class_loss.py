# Source: https://github.com/OpenNMT/OpenNMT-py/issues/2153
# Rebuilt in our own words: a user adds a classification head on the Transformer encoder for joint learning and backpropagates its loss inside OpenNMT's loss-compute __call__, before the library's sharded NMT loss runs its own backward through the decoder
# Mechanism: shared output two backwards
# OpenNMT-py is not installed here: Statistics, the tiny encoder-decoder and the training loop are
# small stand-ins; split_state/shards keep the library's sharded-loss mechanism (shard losses are
# backpropagated into detached copies of the decoder output, then one backward goes through the
# whole network).
from types import SimpleNamespace

import torch
import torch.nn as nn

torch.manual_seed(0)


class Statistics:
    def __init__(self, loss=0.0, n_words=0, n_correct=0):
        self.loss, self.n_words, self.n_correct = loss, n_words, n_correct

    def update(self, other):
        self.loss += other.loss
        self.n_words += other.n_words


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
        torch.autograd.backward(inputs, grads)  # realworld: fails


class JointLossCompute(nn.Module):
    def __init__(self, criterion, generator, class_criterion, class_weight=0.3):
        super().__init__()
        self.criterion = criterion
        self.generator = generator
        self.class_criterion = class_criterion
        self.class_weight = class_weight

    def _compute_class_loss(self, class_logits, class_refs):
        loss = self.class_weight * self.class_criterion(class_logits, class_refs)
        return loss, Statistics(loss.item(), class_refs.numel(), 0)

    def _compute_loss(self, batch, output, target):
        scores = self.generator(output.view(-1, output.size(2)))
        loss = self.criterion(scores, target.view(-1))
        return loss, Statistics(loss.item(), target.numel(), 0)

    def __call__(self, batch, output, class_logits, normalization, shard_size=32):
        batch_stats = Statistics()
        class_loss, class_stats = self._compute_class_loss(class_logits, batch.class_labels)
        class_loss.backward()
        batch_stats.update(class_stats)

        shard_state = {"output": output, "target": batch.tgt[1:, :, 0]}
        for shard in shards(shard_state, shard_size):
            loss, stats = self._compute_loss(batch, **shard)
            loss.div(float(normalization)).backward()
            batch_stats.update(stats)
        return None, batch_stats


class TinyJointModel(nn.Module):
    def __init__(self, vocab=20, dim=16, n_classes=3):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, dim)
        self.tgt_emb = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=32, dropout=0.0)
        self.decoder = nn.TransformerDecoderLayer(dim, 2, dim_feedforward=32, dropout=0.0)
        self.class_head = nn.Linear(dim, n_classes)

    def forward(self, src, tgt_in):
        memory = self.encoder(self.src_emb(src))
        dec_out = self.decoder(self.tgt_emb(tgt_in), memory)
        return dec_out, self.class_head(memory.mean(dim=0))


vocab = 20
model = TinyJointModel(vocab)
generator = nn.Sequential(nn.Linear(16, vocab), nn.LogSoftmax(dim=-1))
compute = JointLossCompute(nn.NLLLoss(reduction="sum"), generator, nn.CrossEntropyLoss())
optim = torch.optim.Adam(list(model.parameters()) + list(generator.parameters()), lr=1e-3)

for step in range(3):
    src = torch.randint(2, vocab, (7, 4))
    tgt = torch.randint(2, vocab, (6, 4, 1))
    batch = SimpleNamespace(src=src, tgt=tgt, class_labels=torch.randint(0, 3, (4,)))
    optim.zero_grad()
    output, class_logits = model(src, tgt[:-1, :, 0])
    compute(batch, output, class_logits, normalization=tgt[1:].numel(), shard_size=2)
    optim.step()

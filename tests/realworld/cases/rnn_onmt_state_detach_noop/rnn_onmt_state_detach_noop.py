# Source: https://github.com/OpenNMT/OpenNMT-py/issues/403
# Rebuilt in our own words: NMT trainer with truncated BPTT over the target; the decoder state object's detach() was changed from in-place detach_() to a plain detach() call, and the loss helper runs backward itself.
# Mechanism: callee calls backward
import torch
import torch.nn as nn

import onmt
import onmt.io


class DecoderState(object):
    def detach(self):
        for h in self._all:
            if h is not None:
                h.detach()


class RNNDecoderState(DecoderState):
    def __init__(self, context, hidden_size, rnnstate):
        if not isinstance(rnnstate, tuple):
            self.hidden = (rnnstate,)
        else:
            self.hidden = rnnstate
        batch_size = context.size(1)
        self.input_feed = context.new_zeros(1, batch_size, hidden_size)

    @property
    def _all(self):
        return self.hidden + (self.input_feed,)

    def update_state(self, rnnstate, input_feed):
        self.hidden = rnnstate if isinstance(rnnstate, tuple) else (rnnstate,)
        self.input_feed = input_feed


class ShardedLoss(object):
    def __init__(self, generator, padding_idx):
        self.generator = generator
        self.criterion = nn.NLLLoss(ignore_index=padding_idx, reduction="sum")

    def sharded_compute_loss(self, batch, output, start, trunc_size, normalization):
        target = batch.tgt[start + 1:start + 1 + trunc_size]
        scores = self.generator(output.view(-1, output.size(2)))
        loss = self.criterion(scores, target.reshape(-1))
        loss.div(float(normalization)).backward()
        return loss.item()


class Trainer(object):
    def __init__(self, model, train_iter, train_loss, optim, trunc_size=0):
        self.model = model
        self.train_iter = train_iter
        self.train_loss = train_loss
        self.optim = optim
        self.trunc_size = trunc_size

    def train(self, epoch):
        self.model.train()
        total = 0.0
        for i, batch in enumerate(self.train_iter):
            target_size = batch.tgt.size(0)
            trunc_size = self.trunc_size if self.trunc_size else target_size
            dec_state = None
            src = onmt.io.make_features(batch, "src")
            _, src_lengths = batch.src
            tgt_outer = onmt.io.make_features(batch, "tgt")
            normalization = batch.tgt[1:].ne(0).sum().item()

            for j in range(0, target_size - 1, trunc_size):
                tgt = tgt_outer[j:j + trunc_size]
                self.model.zero_grad()
                outputs, attns, dec_state = self.model(src, tgt, src_lengths, dec_state)
                total += self.train_loss.sharded_compute_loss(
                    batch, outputs, j, trunc_size, normalization)
                self.optim.step()
                if dec_state is not None:
                    dec_state.detach()
        return total

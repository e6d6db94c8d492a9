# Source: https://github.com/OpenNMT/OpenNMT-py/issues/403
# Rebuilt in our own words: NMT trainer with truncated BPTT over the target; the decoder state object's detach() was changed from in-place detach_() to a plain detach() call, and the loss helper runs backward itself.
# Mechanism: callee calls backward
from types import SimpleNamespace

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, HID = 11, 8


class DecoderState:
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


class TinyNMT(nn.Module):
    """Stand-in for onmt's NMTModel: encoder GRU, input-feeding attention decoder."""

    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(VOCAB, HID)
        self.tgt_emb = nn.Embedding(VOCAB, HID)
        self.encoder = nn.GRU(HID, HID)
        self.decoder = nn.GRUCell(2 * HID, HID)
        self.attn_out = nn.Linear(2 * HID, HID)

    def forward(self, src, tgt, lengths, dec_state=None):
        context, enc_hidden = self.encoder(self.src_emb(src))
        if dec_state is None:
            dec_state = RNNDecoderState(context, HID, enc_hidden)
        h = dec_state.hidden[0][0]
        feed = dec_state.input_feed[0]
        outs = []
        for emb_t in self.tgt_emb(tgt):
            h = self.decoder(torch.cat([emb_t, feed], 1), h)
            scores = torch.softmax(torch.einsum("sbh,bh->bs", context, h), dim=1)
            ctx = torch.einsum("bs,sbh->bh", scores, context)
            feed = torch.tanh(self.attn_out(torch.cat([ctx, h], 1)))
            outs.append(feed)
        dec_state.update_state(h.unsqueeze(0), feed.unsqueeze(0))
        return torch.stack(outs), None, dec_state


class ShardedLoss:
    def __init__(self, generator, padding_idx):
        self.generator = generator
        self.criterion = nn.NLLLoss(ignore_index=padding_idx, reduction="sum")

    def sharded_compute_loss(self, batch, output, start, trunc_size, normalization):
        target = batch.tgt[start + 1 : start + 1 + trunc_size]
        scores = self.generator(output.view(-1, output.size(2)))
        loss = self.criterion(scores, target.reshape(-1))
        loss.div(float(normalization)).backward()  # realworld: fails
        return loss.item()


class Trainer:
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
            src = batch.src[0]
            _, src_lengths = batch.src
            tgt_outer = batch.tgt
            normalization = batch.tgt[1:].ne(0).sum().item()

            for j in range(0, target_size - 1, trunc_size):
                tgt = tgt_outer[j : j + trunc_size]
                tgt = tgt[: max(0, min(len(tgt), target_size - 1 - j))]
                self.model.zero_grad()
                outputs, attns, dec_state = self.model(src, tgt, src_lengths, dec_state)
                total += self.train_loss.sharded_compute_loss(
                    batch, outputs, j, len(tgt), normalization
                )
                self.optim.step()
                if dec_state is not None:
                    dec_state.detach()
        return total


batches = [
    SimpleNamespace(
        src=(torch.randint(1, VOCAB, (5, 2)), torch.tensor([5, 5])),
        tgt=torch.randint(1, VOCAB, (9, 2)),
    )
    for _ in range(2)
]
model = TinyNMT()
generator = nn.Sequential(nn.Linear(HID, VOCAB), nn.LogSoftmax(dim=-1))
params = list(model.parameters()) + list(generator.parameters())
trainer = Trainer(
    model,
    batches,
    ShardedLoss(generator, padding_idx=0),
    torch.optim.SGD(params, lr=0.1),
    trunc_size=4,
)
trainer.train(0)

# Source: https://github.com/spro/practical-pytorch/issues/27
# Rebuilt in our own words: batched GRU encoder plus attention decoder trained pair-batch by pair-batch; train() fills the decoder's fixed-length context from `enc_out_seen`, a module-level encoder output left over from an earlier check cell, instead of its own encoder output.
# Mechanism: forward hoisted out of loop
import random

random.seed(0)

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)

MAX_LEN = 7
batch_size = 3
hidden_size = 6
vocab = 14


class Encoder(nn.Module):
    def __init__(self, vocab_size, batch_size, hidden_size):
        super().__init__()
        self.batch_size = batch_size
        self.hidden_size = hidden_size
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, tokens, hidden):
        emb = self.embed(tokens).view(-1, self.batch_size, self.hidden_size)
        return self.gru(emb, hidden)

    def init_hidden(self):
        return torch.zeros(1, self.batch_size, self.hidden_size)


class AttnDecoder(nn.Module):
    def __init__(self, hidden_size, vocab_size, max_len=MAX_LEN):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.attn = nn.Linear(hidden_size * 2, max_len)
        self.combine = nn.Linear(hidden_size * 2, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, vocab_size)

    def forward(self, token, hidden, enc_outputs):
        emb = self.embed(token).view(1, batch_size, -1)
        weights = F.softmax(self.attn(torch.cat((emb[0], hidden[0]), 1)), dim=1)
        applied = torch.bmm(weights.unsqueeze(1), enc_outputs.transpose(1, 0)).transpose(0, 1)
        step_in = F.relu(self.combine(torch.cat((emb[0], applied[0]), 1)).unsqueeze(0))
        step_out, hidden = self.gru(step_in, hidden)
        return F.log_softmax(self.out(step_out[0]), dim=1), hidden, weights


def random_pairs(n):
    src = [
        [random.randint(3, vocab - 1) for _ in range(random.randint(2, MAX_LEN - 2))]
        for _ in range(n)
    ]
    tgt = [
        [random.randint(3, vocab - 1) for _ in range(random.randint(2, MAX_LEN - 2))]
        for _ in range(n)
    ]
    return src, tgt


def make_batch(src, tgt):
    s_len = max(map(len, src)) + 1
    t_len = max(map(len, tgt)) + 1
    src_t = torch.tensor([s + [0] * (s_len - 1 - len(s)) + [1] for s in src])
    tgt_t = torch.tensor([t + [0] * (t_len - 1 - len(t)) + [1] for t in tgt])
    return src_t.t().contiguous(), tgt_t, (tgt_t != 0).float()


def train(src_batch, tgt_batch, tgt_mask, encoder, decoder, enc_opt, dec_opt, max_len=MAX_LEN):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    enc_outputs, enc_hidden = encoder(src_batch, encoder.init_hidden())

    padded = torch.zeros(max_len, batch_size, hidden_size)
    for i in range(enc_out_seen.size(0)):
        padded[i] = enc_out_seen[i]

    dec_input = torch.full((batch_size, 1), 2, dtype=torch.long)
    dec_hidden = enc_hidden
    loss = 0
    for i in range(tgt_batch.size(1)):
        log_probs, dec_hidden, _ = decoder(dec_input, dec_hidden, padded)
        picked = log_probs.gather(1, tgt_batch[:, i].view(-1, 1)) * tgt_mask[:, i].view(-1, 1)
        loss += -picked.sum()
        dec_input = tgt_batch[:, i].view(-1, 1)

    loss.backward()  # realworld: fails
    enc_opt.step()
    dec_opt.step()
    return loss.item() / tgt_batch.size(1)


def train_iters(encoder, decoder, n_iters, lr=0.01):
    enc_opt = optim.SGD(encoder.parameters(), lr=lr)
    dec_opt = optim.SGD(decoder.parameters(), lr=lr)
    for it in range(1, n_iters + 1):
        src, tgt = random_pairs(batch_size)
        src_b, tgt_b, mask_b = make_batch(src, tgt)
        (it, train(src_b, tgt_b, mask_b, encoder, decoder, enc_opt, dec_opt))


encoder = Encoder(vocab, batch_size, hidden_size)
decoder = AttnDecoder(hidden_size, vocab)

check_src, _, _ = make_batch(*random_pairs(batch_size))
enc_out_seen, enc_hidden_seen = encoder(check_src, encoder.init_hidden())


train_iters(encoder, decoder, 3)

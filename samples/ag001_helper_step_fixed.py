"""Word-level language model whose loop calls a `train_step` helper per batch.

Fixed: the caller's loop detaches the hidden state before handing it to the
helper, so each call's backward() stops at the start of its own batch.
"""

import torch
from torch import nn

torch.manual_seed(0)

VOCAB, EMBED, HIDDEN, BATCH, BPTT = 50, 16, 32, 4, 8


class WordModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED)
        self.rnn = nn.GRU(EMBED, HIDDEN)
        self.decoder = nn.Linear(HIDDEN, VOCAB)

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, HIDDEN)

    def forward(self, tokens, hidden):
        out, hidden = self.rnn(self.embed(tokens), hidden)
        return self.decoder(out), hidden


def train_step(model, inputs, targets, optimizer, hidden):
    logits, hidden = model(inputs, hidden)
    loss = nn.functional.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
    return loss.item(), hidden


tokens = torch.randint(0, VOCAB, (BPTT * 5 + 1, BATCH))
model = WordModel()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)

hidden = model.init_hidden(BATCH)
for i in range(0, BPTT * 5, BPTT):
    hidden = hidden.detach()
    inputs, targets = tokens[i : i + BPTT], tokens[i + 1 : i + 1 + BPTT]
    loss, hidden = train_step(model, inputs, targets, optimizer, hidden)
    print(f"batch {i // BPTT}: loss {loss:.3f}")

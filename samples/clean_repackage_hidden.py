"""LSTM language model that detaches its state through a small recursive helper.

`repackage_hidden` cuts every tensor in the (possibly nested) state loose from
its history, so the state carries values, not graphs, into the next batch.
"""

import torch
from torch import nn

torch.manual_seed(0)

VOCAB, EMBED, HIDDEN, LAYERS, BATCH, BPTT = 30, 12, 24, 2, 4, 7


class LanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED)
        self.lstm = nn.LSTM(EMBED, HIDDEN, LAYERS)
        self.decode = nn.Linear(HIDDEN, VOCAB)

    def init_state(self, batch_size):
        zeros = torch.zeros(LAYERS, batch_size, HIDDEN)
        return (zeros, zeros.clone())

    def forward(self, tokens, state):
        out, state = self.lstm(self.embed(tokens), state)
        return self.decode(out), state


def repackage_hidden(state):
    if isinstance(state, torch.Tensor):
        return state.detach()
    return tuple(repackage_hidden(part) for part in state)


corpus = torch.randint(0, VOCAB, (BPTT * 6 + 1, BATCH))
model = LanguageModel()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()

state = model.init_state(BATCH)
for i in range(0, BPTT * 6, BPTT):
    inputs, targets = corpus[i : i + BPTT], corpus[i + 1 : i + 1 + BPTT]
    state = repackage_hidden(state)
    logits, state = model(inputs, state)
    loss = criterion(logits.view(-1, VOCAB), targets.view(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

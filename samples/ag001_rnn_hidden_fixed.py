"""Character-level GRU language model trained with truncated back-propagation.

Fixed: the hidden state still flows from one chunk to the next, but it is
detached at the top of the loop, so each backward() stops at the chunk boundary.
"""

import torch
from torch import nn

torch.manual_seed(0)

VOCAB, EMBED, HIDDEN = 20, 16, 32
BATCH, SEQ_LEN, CHUNKS = 4, 12, 5


class CharModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED)
        self.gru = nn.GRU(EMBED, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens, hidden):
        out, hidden = self.gru(self.embed(tokens), hidden)
        return self.head(out), hidden


model = CharModel()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
corpus = torch.randint(0, VOCAB, (BATCH, SEQ_LEN * CHUNKS + 1))

hidden = torch.zeros(1, BATCH, HIDDEN)
for start in range(0, SEQ_LEN * CHUNKS, SEQ_LEN):
    hidden = hidden.detach()
    inputs = corpus[:, start : start + SEQ_LEN]
    targets = corpus[:, start + 1 : start + SEQ_LEN + 1]
    logits, hidden = model(inputs, hidden)
    loss = criterion(logits.reshape(-1, VOCAB), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"chunk {start // SEQ_LEN}: loss {loss.item():.4f}")

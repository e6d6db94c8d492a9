"""GRU sentiment classifier over independent sentences.

The hidden state is a loop variable, but every batch starts it afresh from
`init_hidden`, so no batch's graph reaches into an earlier one.
"""

import torch
from torch import nn

torch.manual_seed(0)

VOCAB, EMBED, HIDDEN, LENGTH, BATCH = 40, 12, 24, 9, 6


class SentimentModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED)
        self.gru = nn.GRU(EMBED, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, 2)

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, HIDDEN)

    def forward(self, tokens, hidden):
        _, hidden = self.gru(self.embed(tokens), hidden)
        return self.out(hidden[-1]), hidden


model = SentimentModel()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

batches = [
    (torch.randint(0, VOCAB, (BATCH, LENGTH)), torch.randint(0, 2, (BATCH,))) for _ in range(4)
]

hidden = model.init_hidden(BATCH)
for tokens, labels in batches:
    hidden = model.init_hidden(BATCH)
    logits, hidden = model(tokens, hidden)
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

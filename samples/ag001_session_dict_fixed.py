"""Session-based recommender that keeps one GRU state per user session.

Fixed: each session's state is detached as it is stored, so a returning session
resumes from its last state without reaching back into an earlier batch's graph.
"""

import torch
from torch import nn

torch.manual_seed(0)

ITEMS, EMBED, HIDDEN, EVENTS = 30, 8, 16, 5


class SessionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(ITEMS, EMBED)
        self.gru = nn.GRU(EMBED, HIDDEN, batch_first=True)
        self.score = nn.Linear(HIDDEN, ITEMS)

    def forward(self, items, hidden):
        out, hidden = self.gru(self.embed(items), hidden)
        return self.score(out), hidden


model = SessionModel()
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

stream = [(session, torch.randint(0, ITEMS, (1, EVENTS + 1))) for session in ["a", "b", "a", "b"]]

states = {}
for session, events in stream:
    hidden = states.get(session, torch.zeros(1, 1, HIDDEN))
    scores, hidden = model(events[:, :-1], hidden)
    loss = criterion(scores.reshape(-1, ITEMS), events[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    states[session] = hidden.detach()

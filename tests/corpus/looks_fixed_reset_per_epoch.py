# runnable
# I DO re-initialise the hidden state (every epoch), but training still dies on
# the second batch of the first epoch.
import torch
from torch import nn

torch.manual_seed(15)


class Tagger(nn.Module):
    def __init__(self, vocab=40, emb=8, hid=12, tags=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hid)
        self.out = nn.Linear(hid, tags)
        self.hid = hid

    def init_hidden(self, batch):
        return (torch.zeros(1, batch, self.hid), torch.zeros(1, batch, self.hid))

    def forward(self, tokens, hidden):
        y, hidden = self.rnn(self.emb(tokens), hidden)
        return self.out(y), hidden


model = Tagger()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randint(0, 40, (6, 3)), torch.randint(0, 5, (6, 3))) for _ in range(4)]

for epoch in range(2):
    hidden = model.init_hidden(3)
    for tokens, tags in batches:
        scores, hidden = model(tokens, hidden)
        loss = nn.functional.cross_entropy(scores.view(-1, 5), tags.view(-1))
        opt.zero_grad()
        loss.backward()  # expect: AG001
        opt.step()

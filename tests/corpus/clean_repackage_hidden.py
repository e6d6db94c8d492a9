# runnable
# Word-LM loop in the style of the classic example: the hidden state is carried
# across batches but "repackaged" (detached) by a helper before each forward.
import torch
import torch.nn as nn

torch.manual_seed(37)


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    def __init__(self, ntoken=30, ninp=8, nhid=12):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.encoder(tokens), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(1, bsz, self.nhid), weight.new_zeros(1, bsz, self.nhid))


model = RNNModel()
criterion = nn.CrossEntropyLoss()
train_data = torch.randint(0, 30, (61, 4))
bptt, lr, total_loss = 10, 0.5, 0.0

hidden = model.init_hidden(4)
for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
    data, targets = train_data[i : i + bptt], train_data[i + 1 : i + 1 + bptt]
    hidden = repackage_hidden(hidden)
    model.zero_grad()
    output, hidden = model(data, hidden)
    loss = criterion(output.view(-1, 30), targets.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)  # expect: AG006
    total_loss += loss.item()

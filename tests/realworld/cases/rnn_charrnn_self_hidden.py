# Source: https://github.com/gabrielloye/RNN-walkthrough/issues/3
# Rebuilt in our own words: char-level RNN walkthrough on a few short sentences, changed so that forward keeps the hidden state in self.hidden and feeds it into the next call instead of starting from zeros each time.
# Mechanism: state in self attribute across calls
import numpy as np
import torch
from torch import nn

phrases = ["good morning", "see you soon", "what a day"]
alphabet = sorted(set("".join(phrases)))
char2idx = {c: i for i, c in enumerate(alphabet)}
width = max(len(p) for p in phrases)
phrases = [p.ljust(width) for p in phrases]
if " " not in char2idx:
    char2idx[" "] = len(char2idx)
n_chars = len(char2idx)

inputs = [[char2idx[c] for c in p[:-1]] for p in phrases]
targets = [[char2idx[c] for c in p[1:]] for p in phrases]


def one_hot(seqs, n_classes):
    out = np.zeros((len(seqs), len(seqs[0]), n_classes), dtype=np.float32)
    for b, seq in enumerate(seqs):
        for t, idx in enumerate(seq):
            out[b, t, idx] = 1.0
    return out


input_seq = torch.from_numpy(one_hot(inputs, n_chars))
target_seq = torch.tensor(targets)


class CharModel(nn.Module):
    def __init__(self, input_size, output_size, hidden_dim, n_layers):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_layers = n_layers
        self.rnn = nn.RNN(input_size, hidden_dim, n_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_size)
        self.hidden = torch.zeros(n_layers, len(phrases), hidden_dim)

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        out = out.contiguous().view(-1, self.hidden_dim)
        return self.fc(out), self.hidden


model = CharModel(input_size=n_chars, output_size=n_chars, hidden_dim=16, n_layers=1)
n_epochs = 1500
lr = 0.001
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=lr)

for epoch in range(1, n_epochs + 1):
    optimizer.zero_grad()
    output, hidden = model(input_seq)
    loss = criterion(output, target_seq.view(-1).long())
    loss.backward()
    optimizer.step()
    if epoch % 100 == 0:
        print("Epoch: {}/{}.............".format(epoch, n_epochs), end=" ")
        print("Loss: {:.4f}".format(loss.item()))

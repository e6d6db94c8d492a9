# Source: https://github.com/yunjey/pytorch-tutorial/issues/90
# Rebuilt in our own words: word-level LSTM language model tutorial that carries (h, c) from one BPTT window to the next and passes them through a small detach() helper before each forward.
# Mechanism: detached at iteration boundary
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_

from data_utils import Corpus

embed_size = 96
hidden_size = 256
num_layers = 2
num_epochs = 3
batch_size = 16
seq_length = 25
learning_rate = 0.002

corpus = Corpus()
ids = corpus.get_data("data/train.txt", batch_size)
vocab_size = len(corpus.dictionary)
num_batches = ids.size(1) // seq_length


class WordLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        out, (h, c) = self.lstm(self.embed(x), h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        return self.linear(out), (h, c)


model = WordLM(vocab_size, embed_size, hidden_size, num_layers)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)


def detach(states):
    return [state.detach() for state in states]


for epoch in range(num_epochs):
    states = (torch.zeros(num_layers, batch_size, hidden_size),
              torch.zeros(num_layers, batch_size, hidden_size))

    for i in range(0, ids.size(1) - seq_length, seq_length):
        inputs = ids[:, i:i + seq_length]
        targets = ids[:, (i + 1):(i + 1) + seq_length]

        states = detach(states)
        outputs, states = model(inputs, states)
        loss = criterion(outputs, targets.reshape(-1))

        model.zero_grad()
        loss.backward()
        clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()

        step = (i + 1) // seq_length
        if step % 100 == 0:
            print("Epoch [{}/{}], Step[{}/{}], Loss: {:.4f}".format(
                epoch + 1, num_epochs, step, num_batches, loss.item()))

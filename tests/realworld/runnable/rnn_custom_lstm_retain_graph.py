# Source: https://blog.youkuaiyun.com/windhawk_fly/article/details/143405685
# Rebuilt in our own words: hand-written LSTM module trained on text batches; (h0, c0) are drawn once per epoch and the returned states are fed into the next batch, with retain_graph=True added to loss.backward() after the first error.
# Mechanism: retain_graph on carried graph
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

EPOCH = 2
num_layers = 1
batch_size = 3
hidden_dim = 6
embedding_dim = 4
vocab_size = 20


class HandLSTM(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embedding_dim)
        self.W = nn.Parameter(torch.randn(embedding_dim + hidden_dim, 4 * hidden_dim) * 0.05)
        self.b = nn.Parameter(torch.zeros(4 * hidden_dim))
        self.proj = nn.Linear(hidden_dim, embedding_dim)

    def forward(self, tokens, h0, c0):
        x = self.embed(tokens)
        h, c = h0[0], c0[0]
        outs = []
        for t in range(x.size(1)):
            gates = torch.cat([x[:, t], h], dim=1) @ self.W + self.b
            i, f, g, o = gates.chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outs.append(self.proj(h))
        return torch.stack(outs, dim=1), (h.unsqueeze(0), c.unsqueeze(0))


tokens = torch.randint(0, vocab_size, (batch_size * 4, 5))
targets = torch.randn(batch_size * 4, 5, embedding_dim)
data_loader = DataLoader(TensorDataset(tokens, targets), batch_size=batch_size, drop_last=True)
batch_count = len(data_loader)

lstm = HandLSTM(vocab_size, embedding_dim, hidden_dim)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(lstm.parameters(), lr=1e-3)

for epoch in range(EPOCH):
    batch_num = 0
    h0 = torch.randn((num_layers, batch_size, hidden_dim), requires_grad=False)
    c0 = torch.randn((num_layers, batch_size, hidden_dim), requires_grad=False)
    for batch in data_loader:
        optimizer.zero_grad()
        output, (h0, c0) = lstm(batch[0], h0, c0)
        loss = loss_fn(output.reshape(-1, embedding_dim), batch[1].reshape(-1, embedding_dim))
        loss.backward(retain_graph=True)  # realworld: fails
        optimizer.step()
        batch_num += 1
        if batch_num % min(10, batch_count // 2) == 0:
            print(f"epoch {epoch} : batch {batch_num} : {loss.item():.4f}")

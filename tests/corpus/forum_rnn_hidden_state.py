# runnable
# "RuntimeError: Trying to backward through the graph a second time" on the 2nd batch,
# char-level RNN, first epoch dies immediately. What am I doing wrong??
import torch
import torch.nn as nn

torch.manual_seed(0)

n_chars = 30
seq_len = 12
batch_size = 4
hidden_size = 24

text = torch.randint(0, n_chars, (batch_size, 5 * seq_len + 1))

embed = nn.Embedding(n_chars, 16)
rnn = nn.GRU(16, hidden_size, batch_first=True)
fc = nn.Linear(hidden_size, n_chars)
params = list(embed.parameters()) + list(rnn.parameters()) + list(fc.parameters())
optimizer = torch.optim.Adam(params, lr=0.002)
loss_fn = nn.CrossEntropyLoss()

hidden = torch.zeros(1, batch_size, hidden_size)
for i in range(0, text.size(1) - seq_len, seq_len):
    inp = text[:, i : i + seq_len]
    target = text[:, i + 1 : i + 1 + seq_len]
    out, hidden = rnn(embed(inp), hidden)
    logits = fc(out)
    loss = loss_fn(logits.reshape(-1, n_chars), target.reshape(-1))
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()
    print(i, loss.item())

# runnable
# Memory module: a fixed number of slots, each step writes the newest encoding
# into one slot (ring buffer) and the reader attends over all slots.
import torch
import torch.nn as nn

torch.manual_seed(13)
SLOTS, DIM, BATCH = 4, 8, 2

encoder = nn.Linear(3, DIM)
query = nn.Parameter(torch.randn(DIM))
reader = nn.Linear(DIM, 1)
opt = torch.optim.Adam([*encoder.parameters(), query, *reader.parameters()], lr=1e-3)

memory = torch.zeros(BATCH, SLOTS, DIM)
for step in range(10):
    x = torch.randn(BATCH, 3)
    memory[:, step % SLOTS] = torch.tanh(encoder(x))
    attn = torch.softmax(memory @ query, dim=1)
    summary = (attn.unsqueeze(-1) * memory).sum(1)
    loss = reader(summary).pow(2).mean()
    opt.zero_grad()
    loss.backward()  # expect: AG001
    opt.step()

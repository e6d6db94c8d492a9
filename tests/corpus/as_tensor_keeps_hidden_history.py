# runnable
# "Converting" the GRU's hidden state with `torch.as_tensor` does not detach it: given a
# tensor, as_tensor returns that very tensor, history and all. The state carries the first
# batch's graph into the second, whose backward fails.
import torch
import torch.nn as nn

torch.manual_seed(0)
gru = nn.GRU(3, 5, batch_first=True)
optimizer = torch.optim.Adam(gru.parameters(), lr=1e-3)
hidden = torch.zeros(1, 2, 5)

for batch in range(3):
    hidden = torch.as_tensor(hidden, dtype=torch.float32)
    out, hidden = gru(torch.randn(2, 4, 3), hidden)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

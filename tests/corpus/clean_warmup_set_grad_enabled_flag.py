# runnable
# The state is warmed up inside `torch.no_grad()` with a nested
# `torch.set_grad_enabled(flag)` whose flag is False here: a non-literal mode leaves the
# mode as it was (off), so the warmed-up state carries no graph and reusing it as every
# batch's initial state is fine.
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(3, 5, batch_first=True)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.01)
grads_during_warmup = False

hidden = torch.zeros(1, 2, 5)
with torch.no_grad(), torch.set_grad_enabled(grads_during_warmup):
    _, hidden = rnn(torch.randn(2, 8, 3), hidden)

for batch in range(3):
    out, _ = rnn(torch.randn(2, 4, 3), hidden)
    loss = out.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

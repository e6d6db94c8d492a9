# runnable
# Each batch is an independent set of sequences, so the state starts from zeros
# for every batch.
import torch
from torch import nn

torch.manual_seed(26)
lstm = nn.LSTM(3, 10, batch_first=True)
classifier = nn.Linear(10, 2)
optimizer = torch.optim.Adam([*lstm.parameters(), *classifier.parameters()], lr=1e-3)

for epoch in range(2):
    for batch in range(4):
        x = torch.randn(5, 9, 3)
        y = torch.randint(0, 2, (5,))
        h0 = torch.zeros(1, 5, 10)
        c0 = torch.zeros(1, 5, 10)
        out, (h, c) = lstm(x, (h0, c0))
        loss = nn.functional.cross_entropy(classifier(h[-1]), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

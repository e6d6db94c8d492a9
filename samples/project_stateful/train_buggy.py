"""Trains the stateful model: the state kept in models.py carries each batch's graph."""

import torch
from models import StatefulRNN, make_batches

model = StatefulRNN(3, 8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for x, y in make_batches(4):
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

"""Toy attention pooling over padded sequences.

Bug: padded positions are zeroed in the softmax output in place. softmax() saved
its output for the backward, so loss.backward() raises "one of the variables needed
for gradient computation has been modified by an inplace operation".
"""

import torch
from torch import nn

torch.manual_seed(0)

BATCH, LENGTH, DIM = 4, 6, 8
tokens = torch.randn(BATCH, LENGTH, DIM)
lengths = torch.tensor([6, 4, 3, 5])
padding = torch.arange(LENGTH)[None, :] >= lengths[:, None]
targets = torch.randn(BATCH, DIM)
scorer = nn.Linear(DIM, 1)
optimizer = torch.optim.Adam(scorer.parameters(), lr=1e-2)

for step in range(3):
    optimizer.zero_grad()
    scores = scorer(tokens).squeeze(-1)
    weights = torch.softmax(scores, dim=1)
    weights[padding] = 0.0  # expect: AG007
    pooled = (weights.unsqueeze(-1) * tokens).sum(dim=1)
    loss = nn.functional.mse_loss(pooled, targets)
    loss.backward()
    optimizer.step()

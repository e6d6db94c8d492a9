"""Toy attention pooling over padded sequences.

Fixed: the padded positions are masked in the scores before the softmax, out of
place, so the tensor softmax() saved is never modified.
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
    scores = scorer(tokens).squeeze(-1).masked_fill(padding, float("-inf"))
    weights = torch.softmax(scores, dim=1)
    pooled = (weights.unsqueeze(-1) * tokens).sum(dim=1)
    loss = nn.functional.mse_loss(pooled, targets)
    loss.backward()
    optimizer.step()

"""Contrastive learning with a MoCo-style queue of negative keys.

The key encoder's output is pushed into the queue, but it is computed with grad
enabled, so the queue keeps those keys' graphs. The next batch's loss compares
against the queue, and its backward() runs into the previous batch's key graph,
which that batch's backward() already freed.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)

DIM, QUEUE_SIZE, BATCH, TAU, MOMENTUM = 16, 64, 8, 0.07, 0.99

query_encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, DIM))
key_encoder = copy.deepcopy(query_encoder)
optimizer = torch.optim.SGD(query_encoder.parameters(), lr=0.03, momentum=0.9)

queue = F.normalize(torch.randn(QUEUE_SIZE, DIM), dim=1)

for step in range(5):
    images = torch.randn(BATCH, 32)
    view_q = images + 0.1 * torch.randn_like(images)
    view_k = images + 0.1 * torch.randn_like(images)

    q = F.normalize(query_encoder(view_q), dim=1)
    k = F.normalize(key_encoder(view_k), dim=1)

    positive = (q * k).sum(dim=1, keepdim=True)
    negative = q @ queue.T
    logits = torch.cat([positive, negative], dim=1) / TAU
    loss = F.cross_entropy(logits, torch.zeros(BATCH, dtype=torch.long))

    optimizer.zero_grad()
    loss.backward()  # expect: AG001
    optimizer.step()

    with torch.no_grad():
        for p_k, p_q in zip(key_encoder.parameters(), query_encoder.parameters()):
            p_k.mul_(MOMENTUM).add_(p_q, alpha=1 - MOMENTUM)
    queue = torch.cat([k, queue])[:QUEUE_SIZE]

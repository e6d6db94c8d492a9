# runnable
# Features from a frozen encoder computed once under `torch.inference_mode()`: they carry
# no graph, so training a head on them every epoch is fine.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
inputs, targets = torch.randn(32, 6), torch.randn(32, 1)

with torch.inference_mode():
    features = encoder(inputs)
features = features.clone()  # an inference tensor cannot be saved for backward; a copy can

for epoch in range(3):
    loss = ((head(features) - targets) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

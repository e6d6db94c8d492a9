# runnable
# The head's optimizer steps between two backwards over one forward: the first through the
# head (with retain_graph=True), the second, a penalty on the encoder's features, through
# the encoder only. The step changes the head's weight in place, and only the head's
# matmul saved it; the encoder's nodes saved none of it, so the second backward runs clean.
import torch
from torch import nn

torch.manual_seed(0)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3, 1))

    def forward(self, features):
        return features @ self.weight


encoder = nn.Linear(3, 3)
head = Head()
head_optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
for batch in range(3):
    head_optimizer.zero_grad()
    features = torch.tanh(encoder(torch.randn(4, 3)))
    head(features).mean().backward(retain_graph=True)
    head_optimizer.step()
    features.pow(2).mean().backward()

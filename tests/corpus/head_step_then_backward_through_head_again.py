# runnable
# Twin of clean_head_step_then_encoder_only_backward.py where the second backward goes
# through the head again (its score plus the encoder penalty): the head's matmul saved
# the weight the step has just changed in place, and torch raises the in-place error.
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
    score = head(features).mean()
    score.backward(retain_graph=True)
    head_optimizer.step()  # expect: AG007
    (score + features.pow(2).mean()).backward()

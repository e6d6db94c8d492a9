# Source: https://discuss.pytorch.org/t/multi-task-learning-whats-the-difference-between-jointly-backward-and-backward-with-retain-graph-true/28162
# Rebuilt in our own words: a shared trunk feeds two task heads; instead of one backward over the summed losses, each step backpropagates the first task's loss with retain_graph=True and then the second task's loss
# Mechanism: retain_graph on first of two passes
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(40, 96), nn.ReLU(), nn.Linear(96, 96), nn.ReLU())

    def forward(self, x):
        return self.body(x)


trunk = Trunk()
age_head = nn.Linear(96, 1)
genre_head = nn.Linear(96, 8)
params = list(trunk.parameters()) + list(age_head.parameters()) + list(genre_head.parameters())
optimizer = torch.optim.Adam(params, lr=2e-3)

history = []
for epoch in range(10):
    for x, age, genre in loader:
        optimizer.zero_grad()
        shared = trunk(x)
        loss_age = F.smooth_l1_loss(age_head(shared).squeeze(-1), age)
        loss_genre = F.cross_entropy(genre_head(shared), genre)
        loss_age.backward(retain_graph=True)
        loss_genre.backward()
        optimizer.step()
        history.append((loss_age.item(), loss_genre.item()))

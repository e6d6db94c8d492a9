# Source: https://github.com/facebookresearch/moco/issues/21
# Rebuilt in our own words: a MoCo-style momentum-contrast wrapper scores queries against its negatives queue and then enqueues the new keys into that same buffer inside forward; the train loop backpropagates the returned logits afterwards.
# Mechanism: in-place update of carried state
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_encoder(num_classes):
    return nn.Sequential(
        nn.Flatten(), nn.Linear(3 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, num_classes)
    )


class MomentumContrast(nn.Module):
    def __init__(self, make_encoder, dim=16, queue_size=32, m=0.99, tau=0.2):
        super().__init__()
        self.m = m
        self.tau = tau
        self.queue_size = queue_size
        self.query_net = make_encoder(num_classes=dim)
        self.key_net = make_encoder(num_classes=dim)
        for q_param, k_param in zip(self.query_net.parameters(), self.key_net.parameters()):
            k_param.data.copy_(q_param.data)
            k_param.requires_grad = False
        self.register_buffer("negatives", F.normalize(torch.randn(dim, queue_size), dim=0))
        self.register_buffer("write_pos", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _update_key_net(self):
        for q_param, k_param in zip(self.query_net.parameters(), self.key_net.parameters()):
            k_param.data.mul_(self.m).add_(q_param.data, alpha=1.0 - self.m)

    @torch.no_grad()
    def _push_keys(self, keys):
        n = keys.shape[0]
        pos = int(self.write_pos)
        self.negatives[:, pos : pos + n] = keys.T
        self.write_pos[0] = (pos + n) % self.queue_size

    def forward(self, view_a, view_b):
        q = F.normalize(self.query_net(view_a), dim=1)
        with torch.no_grad():
            self._update_key_net()
            k = F.normalize(self.key_net(view_b), dim=1)
        pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        neg = torch.einsum("nc,ck->nk", q, self.negatives.detach())
        logits = torch.cat([pos, neg], dim=1) / self.tau
        targets = torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device)
        self._push_keys(k)
        return logits, targets


def train_epoch(loader, model, criterion, optimizer):
    model.train()
    for step, (view_a, view_b) in enumerate(loader):
        logits, targets = model(view_a, view_b)
        loss = criterion(logits, targets)
        optimizer.zero_grad()
        loss.backward()  # realworld: fails
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


images = torch.rand(12, 3, 8, 8)
loader = [
    (images[i : i + 4] + 0.05 * torch.randn(4, 3, 8, 8), images[i : i + 4]) for i in range(0, 12, 4)
]
model = MomentumContrast(make_encoder)
optimizer = torch.optim.SGD(model.query_net.parameters(), lr=0.03, momentum=0.9)
train_epoch(loader, model, nn.CrossEntropyLoss(), optimizer)

# runnable
# A contrastive model scores its queries against a queue of past keys that it keeps as a
# buffer, passing `self.bank.detach()` to einsum, then writes the new keys into the same
# buffer in place (under no_grad) before returning. `.detach()` shares the buffer's
# storage and version counter, so the saved operand is stale by the time the loss is
# back-propagated: "modified by an inplace operation" (MoCo's queue, moco issue 21).
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(11)


class QueueScorer(nn.Module):
    def __init__(self, width=8, slots=16):
        super().__init__()
        self.encode = nn.Linear(width, width)
        self.slots = slots
        self.register_buffer("bank", F.normalize(torch.randn(width, slots), dim=0))
        self.register_buffer("cursor", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def enqueue(self, keys):
        start = int(self.cursor)
        self.bank[:, start : start + keys.shape[0]] = keys.T  # expect: AG007
        self.cursor[0] = (start + keys.shape[0]) % self.slots

    def forward(self, anchor, positive):
        q = F.normalize(self.encode(anchor), dim=1)
        with torch.no_grad():
            k = F.normalize(self.encode(positive), dim=1)
        scores = torch.einsum("nc,ck->nk", q, self.bank.detach())
        self.enqueue(k)
        return scores


model = QueueScorer()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    anchor = torch.randn(4, 8)
    scores = model(anchor, anchor + 0.1 * torch.randn(4, 8))
    loss = F.cross_entropy(scores, torch.zeros(4, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()

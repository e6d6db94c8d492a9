# runnable
# Twin of queue_written_after_scoring.py: einsum gets `self.bank.clone().detach()`, a
# copy with its own storage, so writing the new keys into the buffer leaves the saved
# operand as it was (the fix in moco's builder). Runs clean.
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
        self.bank[:, start : start + keys.shape[0]] = keys.T
        self.cursor[0] = (start + keys.shape[0]) % self.slots

    def forward(self, anchor, positive):
        q = F.normalize(self.encode(anchor), dim=1)
        with torch.no_grad():
            k = F.normalize(self.encode(positive), dim=1)
        scores = torch.einsum("nc,ck->nk", q, self.bank.clone().detach())
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

# runnable
# The model takes a per-segment backward hook (truncated back-propagation) and the script
# wires it to the accelerator's backward; the loss dict the model returns is built from the
# same segment losses the hook already back-propagated, and the script back-propagates it.
import torch
from accelerate import Accelerator
from torch import nn

torch.manual_seed(5)


class SegmentNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRU(3, 6, batch_first=True)
        self.out = nn.Linear(6, 1)
        self.segment_hook = None

    def forward(self, xs, ys):
        terms = []
        state = None
        for start in range(0, xs.shape[1], 2):
            feats, state = self.cell(xs[:, start : start + 2], state)
            state = state.detach()
            term = nn.functional.mse_loss(self.out(feats), ys[:, start : start + 2])
            if self.segment_hook is not None:
                self.segment_hook(term)
            terms.append(term)
        return {"total": torch.stack(terms).mean(), "segments": len(terms)}


accelerator = Accelerator(cpu=True)
net = SegmentNet()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
net, opt = accelerator.prepare(net, opt)
net.segment_hook = accelerator.backward
for _ in range(2):
    out = net(torch.randn(2, 6, 3), torch.randn(2, 6, 1))
    accelerator.backward(out["total"])  # expect: AG002
    opt.step()
    opt.zero_grad()

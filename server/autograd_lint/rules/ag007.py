"""AG007 inplace-modifies-saved-tensor: an in-place op changes a tensor a later backward needs.

What it does
    Within one function (or the module's code), in straight-line order, flags an in-place
    modification — `x += 1`, `x *= 2`, `x.mul_()`, `x.add_()`, `x.clamp_()`,
    `x[...] = ...`, `F.relu(x, inplace=True)`, `x.relu_()`, `nn.ReLU(inplace=True)(x)` —
    of a tensor that an earlier op saved for backward, when a later `backward()` in the
    same function runs through that op. Saved tensors come from a small table checked
    against torch: the *results* of `sigmoid`, `tanh`, `exp`, `sqrt`, `relu`, `softmax`,
    `log_softmax`; the *inputs* of `log`, `pow`/`**`, `sin`, `cos`, `abs`, `gelu`, `silu`,
    `elu`, `leaky_relu`; each operand of `*`/`mul`, `@`/`matmul`/`mm`/`bmm`, `/`/`div`
    when the other operand requires grad. Views share the check (`y[0].zero_()` modifies
    `y`), and so does `.detach()`; writes through `.data` do not (see AG006). Only
    operands known to require grad count, so `x * 2` followed by `x.add_(1)` is fine.
    An optimizer's `step()` updates its model's weights in place (`opt_d = Adam(
    disc.parameters())`): a graph through `disc(fake)` built before `opt_d.step()` saved
    those weights when its input requires grad, so a later backward through it fails —
    the GAN that reuses `D(G(z))` for the generator's loss after the discriminator's step.
    The interpreter finds the same across loop iterations and calls: a graph kept by
    `retain_graph=True` (or carried state) whose module weights an optimizer step updated
    before the next backward reaches it — the LSTM loop "fixed" with `retain_graph=True`
    crashes here in its second iteration. Which weights an optimizer steps comes from the
    `.parameters()` calls that reach its constructor (of a module, of a submodule, of an
    `nn.Sequential`, through lists and `+`); a layer saves its weights when its input has
    history (a recurrent layer always), and `x @ self.w`, `x * self.w` save the parameter.
    Across calls it also follows a tensor an object keeps (a buffer, a queue): saved by
    `q @ self.queue`, `torch.einsum(..., q, self.queue.detach())` (a `.detach()` or a view
    shares the storage and its version counter; a `.clone()` does not, nor does `.data`),
    then written in place (`self.queue[:, i:j] = keys.T`, even under `no_grad`) before the
    backward that needs it — MoCo's queue without its `.clone()`.

Why it is bad
    The backward raises `RuntimeError: one of the variables needed for gradient
    computation has been modified by an inplace operation`, far from the line at fault —
    the traceback points at `backward()`, not at the in-place op. It raises even when the
    modification ran under `torch.no_grad()`.

Example
    probs = torch.softmax(logits, dim=1)
    probs[:, 0] = 0                  # AG007: softmax saved `probs` for its backward
    loss = -(probs * targets).sum()
    loss.backward()                  # raises here

Fix
    Use the out-of-place form (`probs = probs.masked_fill(mask, 0)`, `h = h + 1`,
    `F.relu(x)` without `inplace=True`), or `.clone()` the tensor before modifying the copy.
    After an optimizer step, run the model again instead of reusing an output computed
    before the step (and drop the `retain_graph=True` that kept it).
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG007",
    "inplace-modifies-saved-tensor",
    Severity.ERROR,
    "An in-place operation modifies a tensor that an earlier op saved for backward; the "
    "backward will raise 'modified by an inplace operation'",
    title="in-place change of a tensor saved for backward",
    what="an in-place op on a tensor a pending backward saved",
    confirmable=True,
)

VALID = [
    # The discriminator's step comes before the generator's loss is built through it.
    """
import torch
gen, disc = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
for _ in range(2):
    fake = gen(torch.randn(4, 2))
    opt_d.zero_grad()
    disc(fake.detach()).mean().backward()
    opt_d.step()
    opt_g.zero_grad()
    (-disc(fake).mean()).backward()
    opt_g.step()
""",
    # A retained graph, and a step of an optimizer whose weights the rest of it never saved.
    """
import torch
enc, head_a, head_b = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)
opt_a = torch.optim.SGD(head_a.parameters(), lr=0.1)
z = enc(torch.randn(2, 3))
loss_a, loss_b = head_a(z).sum(), head_b(z).sum()
loss_a.backward(retain_graph=True)
opt_a.step()
loss_b.backward()
""",
    # Out-of-place update: `h` is rebound, the saved tensor is untouched.
    """
import torch
w = torch.randn(3, requires_grad=True)
h = torch.sigmoid(w * 2)
h = h + 1
h.sum().backward()
""",
    # `x * 2` does not save `x` (a number's gradient is not wanted).
    """
import torch
w = torch.randn(3, requires_grad=True)
x = w * 1
y = x * 2
x.add_(1)
y.sum().backward()
""",
    # The parameters are updated in place after the backward has used them.
    """
import torch
x, target = torch.randn(8, 3), torch.randn(8, 1)
w = torch.randn(3, 1, requires_grad=True)
for step in range(3):
    pred = torch.sigmoid(x @ w)
    loss = (pred - target).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
""",
]

INVALID = [
    # `retain_graph=True` keeps the carried state's graph; the step then changes the GRU
    # weights it saved, and the next iteration's backward reaches it.
    """
import torch
rnn = torch.nn.GRU(2, 3, batch_first=True)
opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
h = torch.zeros(1, 1, 3)
for _ in range(3):
    out, h = rnn(torch.randn(1, 4, 2), h)
    opt.zero_grad()
    out.sum().backward(retain_graph=True)
    opt.step()  # expect: AG007
""",
    # Two losses over one forward, the optimizer stepped between their backward passes.
    """
import torch
from torch import nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 8))
        self.cls = nn.Linear(8, 2)

    def forward(self, x):
        feat = self.trunk(x)
        return feat, self.cls(feat)


net = TwoHeads()
opt = torch.optim.Adam(list(net.trunk.parameters()) + list(net.cls.parameters()))
feat, logits = net(torch.randn(5, 3))
opt.zero_grad()
logits.sum().backward(retain_graph=True)
opt.step()  # expect: AG007
feat.pow(2).mean().backward()
""",
    """
import torch
w = torch.randn(4, 3, requires_grad=True)
logits = torch.randn(2, 4) @ w
probs = torch.softmax(logits, dim=1)
probs[:, 0] = 0  # expect: AG007
loss = probs.sum()
loss.backward()
""",
    """
import torch
import torch.nn.functional as F
w = torch.randn(3, requires_grad=True)
h = torch.tanh(w * 2)
out = F.relu(h, inplace=True)  # expect: AG007
out.sum().backward()
""",
    """
import torch
gen, disc = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
d_fake = disc(gen(torch.randn(4, 2)))
d_fake.mean().backward(retain_graph=True)
opt_d.step()  # expect: AG007
(-d_fake.mean()).backward()
""",
    """
import torch
data = torch.randn(3)
w = torch.randn(3, requires_grad=True)
y = data * w
data += 1  # expect: AG007
y.sum().backward()
""",
]

"""AG006 data-attribute: `.data` used in training code, above all to write through it.

What it does
    Flags `x.data` on tensors (parameters such as `p` from `model.parameters()` or
    `m.weight`, values computed by torch or a model, tensor-like names such as `loss` in
    training code). A write through it — `p.data.copy_(...)`, `p.data.add_(...)`,
    `p.data = ...`, `p.data[i] = ...`, `nn.init.normal_(m.weight.data)` — outside
    `torch.no_grad()` is a warning in code that calls backward or steps an optimizer
    (information elsewhere; swapping a tensor wholesale, `p.data = p.data.half()`, outside
    training code is not reported). A read (`total += loss.data`) in training code is
    information.

Why it is bad
    `x.data` shares `x`'s storage but bypasses autograd: an in-place write through it does
    not bump the version counter, so a backward that saved `x` runs on the new values and
    returns wrong gradients without any error. The same write without `.data` raises
    "one of the variables needed for gradient computation has been modified by an inplace
    operation".

Example
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)     # AG006 (warning)
    running += loss.data                   # AG006 (info): use loss.detach() or loss.item()

Fix
    Write under no_grad on the tensor itself: `with torch.no_grad(): p.add_(p.grad,
    alpha=-lr)` (`p.copy_(new)` for `p.data = new`). Read with `x.detach()`, or `x.item()`
    for a Python number.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG006",
    "data-attribute",
    Severity.INFO,
    "`.data` bypasses autograd's checks: writes through it (a warning outside no_grad in "
    "training code) silently corrupt gradients; reads should use .detach()",
    title="`.data` used as a value",
    what="`.data` reads (use `.detach()`) and writes invisible to autograd",
    kind_severity={"write": Severity.WARNING},
)

VALID = [
    # The update runs under no_grad on the parameters themselves.
    """
import torch
model = torch.nn.Linear(4, 1)
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(p.grad, alpha=-0.1)
""",
    # `.data` of something that is not a tensor.
    """
import torch
from torch.utils.data import TensorDataset
dataset = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in [dataset[:4], dataset[4:]]:
    optimizer.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    optimizer.step()
print(dataset.tensors[0].shape, type(dataset).__name__, torch.utils.data.Dataset)
""",
]

INVALID = [
    """
import torch
model = torch.nn.Linear(4, 1)
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-0.1)  # expect: AG006
""",
    """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
running = 0.0
for step in range(3):
    optimizer.zero_grad()
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    running += loss.data  # expect: AG006
""",
]

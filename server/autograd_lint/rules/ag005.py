"""AG005 zero-grad-misplaced: gradients never cleared, cleared before the step, or on the wrong optimizer.

What it does
    In a loop that calls `backward()` and an optimizer's `step()`, flags
    (a) a step that runs every iteration while nothing in the loop clears gradients
        (`opt.zero_grad()`, `model.zero_grad()`, `p.grad = None`, `p.grad.zero_()`, or a
        function of the file that does one of these); a step under a condition
        (`if (i + 1) % accum == 0:`) is gradient accumulation and is left alone;
    (b) a `zero_grad()` between the last `backward()` and the `step()` in straight-line
        order (in a loop or not);
    (c) a loop that clears optimizer A (`opt_g.zero_grad()`) and steps optimizer B
        (`opt_d.step()`) without ever clearing B, when both are optimizers built by name in
        the file.
    (a) is reported at the `step()`, (b) and (c) at the `zero_grad()`.

Why it is bad
    `backward()` adds into `.grad`. Without clearing, every step uses the sum of all
    gradients so far: updates grow, training diverges or crawls, and nothing raises. With
    `zero_grad()` between backward and step, the step sees zeros (or `None`, and skips the
    parameters): the model silently stops learning.

Example
    for x, y in loader:
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.zero_grad()        # AG005: clears the gradients the step needs
        optimizer.step()

Fix
    Clear once per step, before the backward (or right after the step):
    `optimizer.zero_grad()` at the top of the loop body. With two optimizers, clear each
    one that is stepped. For deliberate accumulation, step and clear under the same
    condition.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG005",
    "zero-grad-misplaced",
    Severity.WARNING,
    "Gradients are never cleared between optimizer steps, cleared between backward() and "
    "step(), or cleared on a different optimizer than the one stepped",
    title="zero_grad misplaced",
    what="gradients never cleared, or cleared between `backward()` and `step()`",
)

VALID = [
    # Cleared at the top of each iteration.
    """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
""",
    # Gradient accumulation: the step (and the clearing) happen every `accum` iterations.
    """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum = 4
for i in range(8):
    loss = model(torch.randn(2, 4)).pow(2).mean() / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
    # Two optimizers, each cleared before its own backward.
    """
import torch
gen, disc = torch.nn.Linear(2, 4), torch.nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters())
opt_d = torch.optim.Adam(disc.parameters())
for step in range(3):
    fake = gen(torch.randn(8, 2))
    opt_d.zero_grad()
    d_loss = disc(fake.detach()).mean() - disc(torch.randn(8, 4)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = -disc(fake).mean()
    g_loss.backward()
    opt_g.step()
""",
    # Gradients set to None by hand in a helper of the same file.
    """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

def clear(module):
    for p in module.parameters():
        p.grad = None

for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    clear(model)
""",
]

INVALID = [
    """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()  # expect: AG005
""",
    """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    loss.backward()
    optimizer.zero_grad()  # expect: AG005
    optimizer.step()
""",
    """
import torch
gen, disc = torch.nn.Linear(2, 4), torch.nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters())
opt_d = torch.optim.Adam(disc.parameters())
for step in range(3):
    fake = gen(torch.randn(8, 2))
    opt_g.zero_grad()  # expect: AG005
    d_loss = disc(fake.detach()).mean() - disc(torch.randn(8, 4)).mean()
    d_loss.backward()
    opt_d.step()
    g_loss = -disc(fake).mean()
    g_loss.backward()
    opt_g.step()
""",
]

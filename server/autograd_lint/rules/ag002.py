"""AG002 backward-through-freed-shared-graph: a second backward over a graph already freed.

What it does
    Flags a `backward()` that reaches graph nodes an earlier `backward()` in the same step
    already freed: the same loss back-propagated twice, two losses that share a forward pass
    each calling `backward()`, or a GAN whose `fake = G(z)` feeds `D(fake)` for the
    discriminator loss and again for the generator loss without `fake.detach()`.

Why it is bad
    The second call raises `RuntimeError: Trying to backward through the graph a second
    time`: the first backward freed the tensors the shared part of the graph saved.

Example
    out = model(x)
    loss_a = criterion_a(out, y)
    loss_b = criterion_b(out, y)
    loss_a.backward()
    loss_b.backward()                # AG002

Fix
    Back-propagate once through the sum: `(loss_a + loss_b).backward()`; or pass
    `retain_graph=True` to the *first* of the two backward calls only (never the last, and
    never to carry a graph across iterations); in a GAN, give the discriminator
    `D(fake.detach())`.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG002",
    "backward-through-freed-shared-graph",
    Severity.ERROR,
    "A second backward goes through a graph that an earlier backward in the same step freed",
    title="second backward through a shared graph already freed",
    what="a second backward over a graph freed earlier in the same step",
    confirmable=True,
)

# What its findings say. The analysis fills the named fields; {{0}}, {{1}} become the
# lines the finding points at when it is rendered.
MESSAGES = {
    "same-tensor": "second backward through the same graph: the backward at line {{0}} "
    "already freed its saved tensors",
    "shared-graph": "second backward through a graph already freed: the backward at line "
    "{{0}} freed the saved tensors of {via}, which this loss also uses",
}

VALID = [
    # retain_graph=True on the first of two passes over one graph.
    """
import torch
model = torch.nn.Linear(4, 2)
out = model(torch.randn(3, 4))
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].abs().mean()
loss_a.backward(retain_graph=True)
loss_b.backward()
""",
    # Two backward passes over disjoint graphs.
    """
import torch
a = torch.nn.Linear(4, 1)
b = torch.nn.Linear(4, 1)
x = torch.randn(3, 4)
a(x).sum().backward()
b(x).sum().backward()
""",
]

INVALID = [
    """
import torch
model = torch.nn.Linear(4, 2)
out = model(torch.randn(3, 4))
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].tanh().mean()
loss_a.backward()
loss_b.backward()  # expect: AG002
""",
    """
import torch
model = torch.nn.Linear(4, 1)
loss = model(torch.randn(3, 4)).pow(2).mean()
loss.backward()
loss.backward()  # expect: AG002
""",
    # A non-scalar root with its gradient given positionally.
    """
import torch
model = torch.nn.Linear(4, 3)
out = model(torch.randn(2, 4)).tanh()
out.backward(torch.ones_like(out))
out.sum().backward()  # expect: AG002
""",
]

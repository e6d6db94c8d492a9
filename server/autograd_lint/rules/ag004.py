"""AG004 retain-graph-in-loop: `retain_graph=True` where it only hides a problem.

What it does
    Flags `backward(retain_graph=True)` executed in a loop whose graph the next iteration
    reaches (state carried without `.detach()`), and `retain_graph=True` on a backward that
    no later backward needs (one after the loop counts: a WGAN-GP generator step on the
    critic loop's last `fake`).

Why it is bad
    It is the most common answer to "Trying to backward through the graph a second time",
    and almost always the wrong one: the error goes away, but every iteration's graph stays
    alive and each backward walks all earlier iterations again, so memory and time per step
    grow with the step count; after `optimizer.step()` it usually turns into the other error,
    "one of the variables needed for gradient computation has been modified by an inplace
    operation". On a backward that nothing later needs it just keeps a graph alive for nothing.

Example
    for x, y in batches:
        out, hidden = rnn(x, hidden)
        loss = loss_fn(out, y)
        loss.backward(retain_graph=True)   # AG004

Fix
    Remove `retain_graph=True` and cut the carried state where it enters the next iteration
    (`hidden = hidden.detach()`). Keep `retain_graph=True` only on the first of two backward
    passes that share a graph in the same step.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG004",
    "retain-graph-in-loop",
    Severity.WARNING,
    "retain_graph=True hides a carried graph or keeps a graph no later backward needs",
    title="retain_graph=True in a loop",
    what="`retain_graph=True` hiding a carried graph, or needed by no later backward",
)

# What its findings say.
MESSAGES = {
    "retain-carried": "`retain_graph=True` in a loop whose graph the next iteration reaches: "
    "it hides the carried-graph error (AG001) while every step back-propagates through all "
    "earlier iterations, so each step is slower than the last; detach the carried state "
    "instead",
    # "no later backward": decided at the end of the analysed function, so a backward after
    # the loop that reuses the last iteration's graph (a WGAN-GP generator step on the
    # critic loop's `fake`) counts.
    "retain-unneeded": "`retain_graph=True` that no later backward needs: the graph is kept "
    "until the next iteration replaces it; remove it (keep it only on the first of two "
    "passes over one graph)",
}

VALID = [
    """
import torch
model = torch.nn.Linear(4, 2)
for step in range(3):
    out = model(torch.randn(3, 4))
    out[:, 0].sum().backward(retain_graph=True)
    out[:, 1].sum().backward()
""",
]

INVALID = [
    """
import torch
rnn = torch.nn.GRU(4, 8, batch_first=True)
hidden = torch.zeros(1, 2, 8)
for step in range(3):
    out, hidden = rnn(torch.randn(2, 5, 4), hidden)
    loss = out.pow(2).mean()
    loss.backward(retain_graph=True)  # expect: AG004
""",
    """
import torch
model = torch.nn.Linear(4, 1)
for step in range(3):
    loss = model(torch.randn(3, 4)).pow(2).mean()
    loss.backward(retain_graph=True)  # expect: AG004
""",
]

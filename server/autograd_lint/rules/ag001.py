"""AG001 backward-through-carried-graph: a backward reaches a graph from an earlier iteration.

What it does
    Flags a `backward()` (or `torch.autograd.backward` / `torch.autograd.grad`) inside a loop
    whose loss still depends on graph nodes built in an *earlier* iteration — an RNN hidden
    state carried from one batch to the next, a loss accumulated with `total = total + loss`,
    state kept on a module (`self.hidden`), or a forward pass computed once before the loop —
    after an earlier `backward()` has already freed those nodes' saved tensors.

    In a Jupyter notebook it also flags a cell that fails only when it is *run again*: a
    cell that reads a global it also writes (`out, hidden = rnn(x, hidden)`) and calls
    `backward()` starts its second run from the graph its first run built and freed. This
    is a **warning** (running the notebook top to bottom works) whose message starts
    "fails when cell N is run again", with the step "cell N reads `hidden` that its
    previous run left with a graph" (see docs/notebooks.md).

Why it is bad
    The second iteration raises `RuntimeError: Trying to backward through the graph a second
    time (or directly access saved tensors after they have already been freed)`. The usual
    advice, `backward(retain_graph=True)`, hides the error but keeps every iteration's graph
    alive: memory and time per step grow without bound, and gradients flow into earlier
    batches.

Example
    hidden = torch.zeros(1, 4, 8)
    for x, y in batches:
        out, hidden = rnn(x, hidden)
        loss = loss_fn(out, y)
        loss.backward()              # AG001: fails in iteration 2

Fix
    Cut the graph where the value crosses into the next iteration:
    `hidden = hidden.detach()` at the top of the loop (for an LSTM, detach both `h` and `c`);
    use `.item()` for a running total that is only logged; move a forward pass computed once
    before the loop into the loop. A notebook cell that fails on re-run: detach the state
    it reads at the top of the cell (the quick fix), or reset it in the cell.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG001",
    "backward-through-carried-graph",
    Severity.ERROR,
    "A backward reaches a graph built in an earlier iteration (or before the loop) that an "
    "earlier backward already freed",
    title="backward through a graph carried across iterations",
    what="a backward reaches a graph from an earlier iteration or from before the loop",
    confirmable=True,
    kind_severity={"notebook-rerun": Severity.WARNING},
)

# What its findings say. The analysis fills the named fields; {{0}}, {{1}} become the
# lines the finding points at when it is rendered.
MESSAGES = {
    "carried": "backward through a graph from an earlier iteration: {names} {carry} the "
    "graph built at line {{0}} into the next iteration, after the backward at line {{1}} "
    "freed it",
    "hoisted": "backward through a graph built once before the loop: {names} (line {{0}}) "
    "{are} reused in every iteration, but the first backward already freed its saved tensors",
}

VALID = [
    # The state is detached where it enters the next iteration.
    """
import torch
rnn = torch.nn.RNN(4, 8, batch_first=True)
hidden = torch.zeros(1, 2, 8)
for step in range(3):
    hidden = hidden.detach()
    out, hidden = rnn(torch.randn(2, 5, 4), hidden)
    loss = out.pow(2).mean()
    loss.backward()
""",
    # State reassigned from a fresh value in every iteration.
    """
import torch
model = torch.nn.Linear(4, 1)
for step in range(3):
    state = torch.zeros(2, 4)
    state = model(state + torch.randn(2, 4))
    loss = state.sum()
    loss.backward()
""",
    # A running total kept with .item() is plain data.
    """
import torch
model = torch.nn.Linear(4, 1)
total = 0.0
for step in range(3):
    loss = model(torch.randn(2, 4)).sum()
    loss.backward()
    total += loss.item()
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
    loss.backward()  # expect: AG001
""",
    """
import torch
model = torch.nn.Linear(4, 1)
total_loss = 0
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    total_loss = total_loss + loss
    total_loss.backward()  # expect: AG001
""",
    """
import torch
model = torch.nn.Linear(4, 4)
features = model(torch.randn(2, 4))
for step in range(3):
    loss = (features * torch.randn(2, 4)).sum()
    loss.backward()  # expect: AG001
""",
]

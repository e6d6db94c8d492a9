"""AG003 graph-accumulated-across-iterations: history that outlives its iteration.

What it does
    Flags a value with autograd history that is accumulated across loop iterations and
    outlives them — `total_loss += loss`, `running = running + loss`, `losses.append(loss)`,
    `outputs.append(logits)`, `history[k] = loss` — when no single backward ever consumes it
    across iterations (it is only logged, averaged or kept for metrics).

Why it is bad
    Each accumulated tensor keeps its whole graph alive: the running total of step *n*
    references the graphs of steps 1..*n*. Memory grows every step and, when the total is
    finally used, so does the time to walk it. It is a silent leak: nothing raises, the job
    just slows down and runs out of memory hours later.

Example
    total_loss = 0
    for x, y in loader:
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss           # AG003: keeps every step's graph alive

Fix
    Accumulate plain numbers: `total_loss += loss.item()`; collect `logits.detach()` (or
    `.cpu()` after `.detach()`) for metrics. Accumulating losses that are back-propagated
    once after the loop (REINFORCE over an episode, a summed multi-step loss) is correct and
    is not flagged.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    "AG003",
    "graph-accumulated-across-iterations",
    Severity.WARNING,
    "A value with autograd history is accumulated across iterations and keeps every "
    "iteration's graph alive",
    title="graph accumulated across iterations",
    what="`total += loss`, `outputs.append(logits)`: every step's graph kept alive",
)

# What its findings say; the analysis fills the named fields.
MESSAGES = {
    kind: "`{name}` {how} autograd history across iterations: every iteration's graph stays "
    "alive and it grows each step (memory and time); {fix}"
    for kind in ("container", "running-total")
}

VALID = [
    """
import torch
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total_loss = 0.0
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total_loss += loss.item()
""",
    # REINFORCE: the log-probabilities are back-propagated once, after the episode.
    """
import torch
policy = torch.nn.Linear(4, 2)
log_probs = []
for t in range(5):
    dist = torch.distributions.Categorical(logits=policy(torch.randn(4)))
    log_probs.append(dist.log_prob(dist.sample()))
loss = -torch.stack(log_probs).sum()
loss.backward()
""",
    # A window of recent losses, emptied in place after each update.
    """
import torch
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
window = []
for step in range(4):
    window.append(model(torch.randn(2, 4)).pow(2).mean())
    if len(window) == 2:
        opt.zero_grad()
        torch.stack(window).mean().backward()
        opt.step()
        del window[:]
""",
]

INVALID = [
    """
import torch
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total_loss = 0.0
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total_loss += loss  # expect: AG003
print(total_loss / 3)
""",
    """
import torch
model = torch.nn.Linear(4, 3)
outputs = []
for step in range(3):
    logits = model(torch.randn(2, 4))
    loss = logits.logsumexp(dim=1).mean()
    loss.backward()
    outputs.append(logits)  # expect: AG003
accuracy = torch.cat(outputs).argmax(dim=1).float().mean()
""",
]

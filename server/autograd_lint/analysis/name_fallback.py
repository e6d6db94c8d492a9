"""The one documented fallback on names: every place the analysis reads a spelling.

Consulted only where the code shows nothing of a value (no constructor, no import, no use
that tells, no body to read), only by warnings (AG005), never for an error. A partial
snippet's `optimizer.step()` with no `zero_grad()` anywhere is exactly the bug AG005
reports, and then the name is all there is. A rule that wants a spelling adds its row
here, with the reason, so the list of places where names are still consulted is this file.

Rows (role: who asks, when):
- OPTIMIZER_ROLE: AG005 (checks/zero_grad.is_optimizer), for a receiver of `.step()` or
  `.zero_grad()` that no constructor of the file built and whose use in its scope says
  nothing (a parameter of a snippet with only `opt.step()`), and for the argument of an
  unknown object's `.step(x)` (an AMP scaler's `scaler.step(opt)` whose scaler the snippet
  neither builds nor uses).
- CLEARING_ROLE: AG005 (checks/zero_grad.EventCollector.call), for a call of a function
  whose body the file does not hold (imported, or a method of an object built elsewhere):
  `self.optimizer_zero_grad()`, `utils.clear_grads(model)`. A function the file defines is
  judged by its body, never by this row.
- CONVENTIONAL_MODULES: the interpreter (calls.call_namespace), for a call through a name
  that the file neither binds nor imports (`nn.Linear(...)`, `F.relu(x)` in a pasted
  snippet): the module aliases torch's own documentation uses. They name a library, not a
  value, and any import of the name (`import jax.numpy as np`) outranks them.
"""

from __future__ import annotations

import re

OPTIMIZER_ROLE = "optimizer"
SCALER_ROLE = "scaler"  # a kind constructors.py knows from `GradScaler(...)`; no name row
CLEARING_ROLE = "clears gradients"

FALLBACK_NAMES = {
    OPTIMIZER_ROLE: re.compile(r"optim|(?:^|_)opt(?:$|_|[A-Z0-9])", re.IGNORECASE),
    CLEARING_ROLE: re.compile(
        r"zero_grad|(zero|clear|reset)_?grad|grad_?(zero|clear|reset)", re.IGNORECASE
    ),
}


def fallback_role(path: str, role: str) -> bool:
    """Whether the last part of `path` is spelled like a `role` (see FALLBACK_NAMES)."""
    tail = path.rpartition(".")[2]
    return bool(FALLBACK_NAMES[role].search(tail)) and "sched" not in tail.lower()


CONVENTIONAL_MODULES = {
    "nn": "torch.nn",
    "F": "torch.nn.functional",
    "optim": "torch.optim",
    "D": "torch.distributions",
    "dist": "torch.distributions",
    "distributions": "torch.distributions",
    "np": "numpy",
}


def conventional_module(qualified: str) -> str:
    """`qualified` (already through the file's imports) with an unimported conventional
    module alias at its head spelled out (see CONVENTIONAL_MODULES)."""
    head, dot, rest = qualified.partition(".")
    module = CONVENTIONAL_MODULES.get(head)
    return f"{module}{dot}{rest}" if module is not None and dot else qualified

"""The one documented fallback on names: every place the analysis reads a spelling.

Consulted only where the code shows nothing of a value (no constructor, no import, no use
that tells), only by warnings (AG005), never for an error. A partial snippet's
`optimizer.step()` with no `zero_grad()` anywhere is exactly the bug AG005 reports, and
then the name is all there is. A rule that wants a spelling adds its row here, with the
reason, so the list of places where names are still consulted is this file.
"""

from __future__ import annotations

import re

OPTIMIZER_ROLE = "optimizer"
SCALER_ROLE = "scaler"

FALLBACK_NAMES = {
    OPTIMIZER_ROLE: re.compile(r"optim|(?:^|_)opt(?:$|_|[A-Z0-9])", re.IGNORECASE),
    SCALER_ROLE: re.compile(r"scaler", re.IGNORECASE),
}


def fallback_role(path: str, role: str) -> bool:
    """Whether the last part of `path` is spelled like a `role` (see FALLBACK_NAMES)."""
    tail = path.rpartition(".")[2]
    return bool(FALLBACK_NAMES[role].search(tail)) and "sched" not in tail.lower()

"""Optimizers constructed in source text: `opt = torch.optim.Adam(model.parameters())`.

Found from the optimizer class names outwards: a pattern that starts at the assigned
name has to be tried at every identifier of the file, and backtracks on long lines
(it was a quarter of the pattern checks' time on a 5,000-line training file).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .. import torch_api as api

_CLASSES = "|".join(sorted(api.OPTIMIZER_CLASSES))
OPTIMIZER_CALL = re.compile(rf"\b(?:{_CLASSES})\(")
# What precedes the class name on its line: `name =`, `self.opt: Optimizer = torch.optim.`
_ASSIGNED = re.compile(r"([A-Za-z_][\w.]*)\s*(?::[^=\n]+)?=\s*(?:[\w.]*\.)?$")
# What follows the opening parenthesis: the model whose parameters it steps.
_PARAMETERS_OF = re.compile(r"\s*(?:params\s*=\s*)?(?:list\(\s*)?([A-Za-z_][\w.]*)\.parameters\(\)")


def constructed_optimizers(text: str) -> Iterator[tuple[str, str | None]]:
    """(assigned name, model whose `.parameters()` is the first argument, or None)."""
    if "(" not in text:
        return
    for call in OPTIMIZER_CALL.finditer(text):
        line_start = text.rfind("\n", 0, call.start()) + 1
        assigned = _ASSIGNED.search(text, line_start, call.start())
        if assigned is None:
            continue
        model = _PARAMETERS_OF.match(text, call.end())
        yield assigned[1], model[1] if model else None

"""The quick fix of a re-run hazard (see rerun.py): a fix strategy of fixes.engine."""

from __future__ import annotations

from ..fixes.common import detach_statement
from ..fixes.infer import TENSOR


def rerun_fixes(context) -> list:
    """Detach the state the cell reads at the top of the cell: the first run is unchanged
    (detaching a fresh tensor cuts nothing) and a re-run starts from plain values."""
    finding = context.finding
    names = finding.extra.get("names") or []
    first = finding.extra.get("cell_first_line")
    if not names or not first:
        return []
    lines = context.doc.source.split("\n")
    at = first - 1
    while at < len(lines) and _skippable(lines[at], at == first - 1):
        at += 1
    if at >= len(lines):
        return []
    statement = detach_statement([(name, {TENSOR}) for name in names], context.torch, set())
    if statement is None:
        return []
    new_source = "\n".join(lines[:at]) + ("\n" if at else "") + statement + "\n".join(lines[at:])
    title = f"Detach {', '.join(f'`{n}`' for n in names)} at the top of the cell (safe to re-run)"
    return [context.candidate(title, new_source, True, "detach-rerun-state")]


def _skippable(line: str, first: bool) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return True
    # A cell magic (`%%time`, now `pass  # ...magic 1`) must stay the cell's first line.
    return first and "# autograd-lint: magic 1" in line

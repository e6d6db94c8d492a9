"""Which failing backward of a harness run answers which static finding.

A run reports the backwards that failed (line, frames, the problem); a finding names the
lines it claims. This module pairs them, and turns a run's measured steps into the verdict
of a growth claim (AG003/AG004). Pure: no process, no torch.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis.model import Finding, Role
from .growth import growth
from .verdict import RuntimeVerdict


def finding_lines(finding: Finding) -> set[int]:
    """Lines a failing backward may be reported at for this finding."""
    lines = set(range(finding.span.start.line, finding.span.end.line + 1))
    lines.update(
        step.span.start.line
        for step in finding.evidence
        if step.role is Role.FAILS and not step.path
    )
    return lines


# Codes whose claim a run measures rather than stops: a graph that grows every step.
GROWTH_CODES = frozenset({"AG003", "AG004"})
FAILURE_FIELDS = (
    "line", "iteration", "problem", "intercepted", "exception", "node", "built_line",
    "built_iteration", "freed_line", "freed_iteration", "frames", "loop", "same_step",
    "after_skip", "repeats", "detail",
)  # fmt: skip


def failure_verdicts(run: RuntimeVerdict) -> list[RuntimeVerdict]:
    """One verdict per distinct failing backward of a confirmed run, first met first."""
    if run.status != "confirmed" or run.problem == "growth":
        return []
    if not run.failures:
        return [run]
    return [
        replace(run, **{key: failure.get(key) for key in FAILURE_FIELDS if key in failure})
        for failure in run.failures
    ]


def matches(finding: Finding, run: RuntimeVerdict) -> bool:
    """Whether the failing backward `run` reports is the one `finding` claims."""
    lines = finding_lines(finding)
    if run.line is None or run.line in lines:
        return True
    # A backward called in a helper: the finding may sit on the call in the loop.
    if any(frame.get("line") in lines for frame in run.frames or ()):
        return True
    # An AG007 finding sits on the in-place change; the backward that trips over it is
    # elsewhere, usually later in the same loop.
    loop = finding.loop
    in_loop = loop is None or loop.start.line <= run.line <= loop.end.line
    return finding.code == "AG007" and run.problem == "inplace" and in_loop


def verdict_for(finding: Finding, run: RuntimeVerdict) -> RuntimeVerdict:
    if finding.code in GROWTH_CODES:
        return growth_verdict(run)
    if run.status != "confirmed":
        return replace(run)
    for failure in failure_verdicts(run):
        if matches(finding, failure):
            return failure
    return replace(
        run,
        status="not-reproduced",
        detail=(
            f"not reached: the script stopped at line {run.line}, where another backward "
            f"failed ({run.detail})"
        ),
    )


def growth_verdict(run: RuntimeVerdict) -> RuntimeVerdict:
    """AG003/AG004 claim that a graph grows every step: confirmed when a measured one did."""
    if run.status == "error" and not run.steps:
        return replace(run)
    grew = growth(run.steps)
    if grew is not None:
        return replace(
            run, status="confirmed", problem="growth", line=grew.line, detail=grew.message()
        )
    calls = len(run.steps)
    return replace(
        run,
        status="not-reproduced",
        problem=None,
        detail=f"not reproduced: no graph grew at every step over {calls} backward calls",
    )

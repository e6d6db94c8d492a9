"""Which finding (and which of its evidence steps) lies under the cursor."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from ..analysis.model import Finding, Position, Span, Step
from ..explain import hover_summary

log = logging.getLogger(__name__)


def findings_at(
    findings: Iterable[Finding], position: Position
) -> list[tuple[Finding, Step | None, Span]]:
    """Each finding whose span or one of whose evidence steps (in this file) holds
    `position`, with the step pointed at and the span to highlight."""
    hits = []
    for finding in findings:
        if finding.span.contains(position.line, position.column):
            # On the flagged span no step is named: the hover is the finding's own. (The
            # failing step may lie elsewhere, AG007's backward after the in-place op, and
            # "This line:" must not call the in-place op "this backward".)
            hits.append((finding, None, finding.span))
            continue
        step = _step_at(finding, position)
        if step is not None:
            hits.append((finding, step, step.span))
    return hits


def evidence_at(
    findings: Iterable[Finding], paths: set[str], position: Position
) -> list[tuple[Finding, Step | None, Span]]:
    """Findings of other files whose evidence points at `position` in this file (known
    by any of `paths`): an imported module's line that stores the graph, say."""
    hits = []
    for finding in findings:
        for step in finding.evidence:
            if step.path in paths and step.span.contains(position.line, position.column):
                hits.append((finding, step, step.span))
                break
    return hits


def hover_markdown(
    hits: list[tuple[Finding, Step | None, Span]],
    source: str | None = None,
    paths: set[str] = frozenset(),
) -> str:
    """Each finding's hover summary. With the document's `source` (and the `paths` it is
    known by), the fix line of its own findings is the preferred quick fix's title: what
    the light bulb will do."""
    return "\n\n---\n\n".join(
        hover_summary(
            finding,
            focus=step,
            fix_title=_preferred_fix_title(source, finding) if finding.path in paths else "",
        )
        for finding, step, _ in hits
    )


# The fix line names the preferred quick fix, which parses the file with libcst (about
# 50 ms of CPU for 1,000 lines, 400 ms for 5,000; then cached for the light bulb). Past
# this size the hover gives the rule's advice instead, so that it stays quick.
FIX_TITLE_MAX_LINES = 1500


def _preferred_fix_title(source: str | None, finding: Finding) -> str:
    if source is None or finding.cell is not None:
        return ""
    if source.count("\n") > FIX_TITLE_MAX_LINES:
        return ""
    try:
        # libcst loads with the first hover that needs it; without it, no rewrite is named
        from ..fixes.available import rewrite_engine

        fixes = rewrite_engine().fixes_for(source, finding)
    except Exception:  # noqa: BLE001 - the hover still explains without a fix title
        log.exception("no fix title for the hover of %s", finding.code)
        return ""
    return next((f.title for f in fixes if f.preferred), "")


def _step_at(finding: Finding, position: Position) -> Step | None:
    for step in finding.evidence:
        in_this_file = not step.path or step.path == finding.path
        if in_this_file and step.span.contains(position.line, position.column):
            return step
    return None

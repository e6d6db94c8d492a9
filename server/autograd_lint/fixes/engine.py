"""Which strategies a finding gets, and fix-all over a document."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable

from ..analysis.model import Finding
from ..notebook.rerun_fix import rerun_fixes
from .accumulated import accumulated_fixes
from .carried import carried_fixes
from .context import Context
from .data_attr import data_fixes
from .document import Document
from .hoisted import hoisted_fixes
from .ignore import ignore_fix
from .inplace import inplace_fixes
from .model import Fix
from .retain import retain_fixes
from .shared import shared_fixes
from .stored import module_state_fixes
from .text import apply_edits, minimal_edits
from .zero_grad import zero_grad_fixes

log = logging.getLogger(__name__)

_STRATEGIES = {
    ("AG001", "carried-state"): carried_fixes,
    ("AG001", "accumulated"): carried_fixes,
    ("AG001", "module-state"): module_state_fixes,
    ("AG001", "hoisted-forward"): hoisted_fixes,
    ("AG002", "shared-graph"): shared_fixes,
    ("AG002", "same-tensor"): shared_fixes,
    ("AG002", "gan"): shared_fixes,
    ("AG001", "notebook-rerun"): rerun_fixes,
    ("AG003", "running-total"): accumulated_fixes,
    ("AG003", "container"): accumulated_fixes,
    ("AG004", "retain-unneeded"): retain_fixes,
    ("AG004", "retain-carried"): retain_fixes,
    ("AG005", "never-cleared"): zero_grad_fixes,
    ("AG005", "cleared-before-step"): zero_grad_fixes,
    ("AG005", "other-optimizer"): zero_grad_fixes,
    ("AG006", "read"): data_fixes,
    ("AG006", "write"): data_fixes,
    ("AG007", "saved-output"): inplace_fixes,
    ("AG007", "saved-input"): inplace_fixes,
    ("AG007", "optimizer-step"): inplace_fixes,
}
_DOCUMENTS: OrderedDict[str, Document | None] = OrderedDict()
_KEEP_DOCUMENTS = 3
MAX_FIX_ALL_ROUNDS = 20


def _document(source: str) -> Document | None:
    """Parsed documents of the last few texts: an editor asks for several findings' fixes."""
    if source in _DOCUMENTS:
        _DOCUMENTS.move_to_end(source)
        return _DOCUMENTS[source]
    try:
        document = Document(source)
    except Exception:  # noqa: BLE001 - a text that does not parse has no rewrites, only ignores
        document = None
    _DOCUMENTS[source] = document
    while len(_DOCUMENTS) > _KEEP_DOCUMENTS:
        _DOCUMENTS.popitem(last=False)
    return document


def fixes_for(source: str, finding: Finding) -> list[Fix]:
    """The fixes for one finding, best first; exactly one is preferred when any rewrite exists."""
    out: list[Fix] = []
    if finding.code == "AG000":
        return out  # a syntax error is fixed by finishing the code, not by hiding it
    strategy = _STRATEGIES.get((finding.code, finding.kind))
    # libcst does not take lone carriage returns as line ends (its pieces stop adding up
    # to the text). A \r and a \n are one character each, so the same positions and the
    # edits' text with its breaks turned back serve the CR-only text.
    cr_only = "\r" in source and "\n" not in source
    document = _document(source.replace("\r", "\n") if cr_only else source) if strategy else None
    if strategy and document is not None:
        try:
            candidates = strategy(Context(document, finding))
        except Exception:  # noqa: BLE001 - a fix is optional; a crash must not cost the diagnostics
            log.exception(
                "fix strategy failed for %s at line %s", finding.code, finding.span.start.line
            )
            candidates = []
        for candidate in candidates:
            new_source = candidate.new_source
            edits = minimal_edits(source, new_source.replace("\n", "\r") if cr_only else new_source)
            if edits and all(f.edits != edits for f in out):
                out.append(
                    Fix(
                        candidate.title,
                        finding.code,
                        edits,
                        candidate.preferred,
                        strategy=candidate.strategy,
                    )
                )
    preferred = [f for f in out if f.preferred]
    if out and len(preferred) != 1:
        best = preferred[0] if preferred else out[0]
        out = [_replace_preferred(f, f is best) for f in out]
    out.sort(key=lambda f: not f.preferred)
    ignore = ignore_fix(source, finding)
    if ignore is not None:
        out.append(ignore)
    return out


def _replace_preferred(fix: Fix, preferred: bool) -> Fix:
    return Fix(fix.title, fix.code, fix.edits, preferred, fix.kind, fix.strategy)


def apply_fixes(source: str, fixes: Iterable[Fix]) -> str:
    """Apply fixes computed against `source`; a fix whose edits overlap an earlier one is skipped."""
    taken: list = []
    for fix in fixes:
        try:
            apply_edits(source, [*taken, *fix.edits])
        except ValueError:
            continue
        taken.extend(fix.edits)
    return apply_edits(source, taken)


def _default_analyzer(source: str, path: str) -> list[Finding]:
    from ..analysis import analyze
    from ..analysis.suppress import filter_suppressed

    return filter_suppressed(analyze(source, path), source)


def fix_all(
    source: str,
    findings: Iterable[Finding] | None = None,
    *,
    path: str = "<string>",
    analyzer: Callable[[str, str], list[Finding]] | None = None,
) -> tuple[str, list[Fix], list[Finding]]:
    """Apply the preferred fix of every finding, re-analysing after each, until nothing changes.

    Returns the new text, the fixes applied (in order) and the findings that remain.
    """
    analyzer = analyzer or _default_analyzer
    current = list(findings) if findings is not None else analyzer(source, path)
    applied: list[Fix] = []
    tried: set[tuple] = set()
    for _ in range(MAX_FIX_ALL_ROUNDS):
        progress = False
        for finding in current:
            key = (finding.code, finding.kind, finding.message)
            if key in tried:
                continue
            tried.add(key)
            best = next((f for f in fixes_for(source, finding) if f.preferred), None)
            if best is None:
                continue
            source = apply_fixes(source, [best])
            applied.append(best)
            progress = True
            break  # positions of the other findings moved: analyse again
        if not progress:
            break
        current = analyzer(source, path)
    return source, applied, current

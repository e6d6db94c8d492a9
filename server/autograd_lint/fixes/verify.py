"""A rewrite is offered only when the analysis of the fixed text agrees with it.

The finding it mends must be gone, and no error (nor a finding of the codes in `also`)
the original lacked may have come in its place. Each text is analysed once: the original
for all of its findings' candidates, a fixed text for every check of it.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from ..analysis.model import Severity

RETAIN_TOO = frozenset({"AG004"})  # a rewrite about retain_graph must not bring in another


def finding_gone(ctx, new_source: str, also: frozenset = frozenset()) -> bool:
    path = ctx.finding.path or "<string>"
    left = Counter(_counted(ctx.doc.source, path, also))
    left[(ctx.finding.code, ctx.finding.kind)] -= 1
    return not _counted(new_source, path, also) - left


@lru_cache(maxsize=16)
def _counted(source: str, path: str, also: frozenset) -> Counter:
    from ..analysis import analyze  # the engine imports the fixes

    found = analyze(source, path)
    return Counter(
        (f.code, f.kind) for f in found if f.severity is Severity.ERROR or f.code in also
    )

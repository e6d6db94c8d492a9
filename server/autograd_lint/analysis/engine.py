"""Placeholder until the engine lands: reports syntax errors only."""

from __future__ import annotations

import ast

from .model import Finding, Severity, Span


def analyze(source: str, path: str = "<string>", *, cache=None) -> list[Finding]:
    try:
        ast.parse(source, path)
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = max((exc.offset or 1) - 1, 0)
        return [Finding("AG000", Severity.ERROR, f"syntax error: {exc.msg}", Span.of(line, col, line, col + 1), path=path)]
    return []

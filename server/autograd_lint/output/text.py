"""Human-readable output: `path:line:col: CODE severity: message`, 1-based lines and columns."""

from __future__ import annotations

import os

from ..analysis.model import Finding, Position, Severity
from ..explain import evidence_to_show
from ..runtime.verdict import format_verdict
from .report import Report

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_SEVERITY_COLOR = {
    Severity.ERROR: "\033[1;31m",
    Severity.WARNING: "\033[1;33m",
    Severity.INFO: "\033[1;36m",
}


def render(report: Report, *, color: bool = False) -> str:
    def paint(text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if color else text

    lines = []
    for finding in report.findings:
        cell = f"cell {finding.cell}:" if finding.cell is not None else ""
        where = f"{finding.path}:{cell}{_line_col(finding.span.start)}:"
        code = paint(finding.code, _SEVERITY_COLOR.get(finding.severity, _BOLD))
        severity = finding.severity.value
        lines.append(f"{paint(where, _BOLD)} {code} {severity}: {finding.message}")
        lines.extend(_evidence(finding, paint))
        verdict = report.verdicts.get(finding)
        if verdict is not None:
            lines.append(f"    {paint('runtime:', _BOLD)} {format_verdict(verdict)}")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _evidence(finding: Finding, paint) -> list[str]:
    out = []
    for step in evidence_to_show(finding):
        where = _line_col(step.span.start)
        if step.path and step.path != finding.path:
            where = f"{_relative(step.path)}:{where}"
        elif step.cell is not None and step.cell != finding.cell:  # another notebook cell
            where = f"cell {step.cell}:{where}"
        out.append(f"    {paint(where + ':', _DIM)} {step.message}")
    return out


def _line_col(position: Position) -> str:
    return f"{position.line}:{position.column + 1}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def summary(report: Report) -> str:
    checked = _count(report.files_checked, "file")
    if not report.findings:
        return f"All checks passed ({checked} checked)."
    return (
        f"Found {_count(len(report.findings), 'finding')} in "
        f"{_count(report.files_with_findings, 'file')} ({checked} checked)."
    )


def _relative(path: str) -> str:
    """Evidence in another file is shown relative to the working directory when it can be."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path

"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`, 1-based,
with the evidence appended to the message on lines of their own.
"""

from __future__ import annotations

from ..analysis.model import Finding, Severity
from .report import Report

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, *, color: bool = False) -> str:
    return "".join(annotation(f) + "\n" for f in report.findings)


def annotation(finding: Finding) -> str:
    if finding.cell is not None and finding.extra.get("notebook") is not None:
        return _cell_annotation(finding)
    span = finding.span
    end_column = span.end.column
    if span.end.line == span.start.line:
        end_column = max(end_column, span.start.column + 1)  # never before the start
    properties = {
        "file": finding.path,
        "line": span.start.line,
        "col": span.start.column + 1,
        # GitHub's end column is inclusive: the 0-based exclusive end is that number.
        "endLine": span.end.line,
        "endColumn": end_column,
        "title": finding.code,
    }
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = finding.message
    for step in finding.evidence:
        where = f"{step.path}:" if step.path and step.path != finding.path else "line "
        message += f"\n{where}{step.span.start.line}:{step.span.start.column + 1}: {step.message}"
    return f"::{COMMANDS[finding.severity]} {props}::{escape_data(message)}"


def _cell_annotation(finding: Finding) -> str:
    """A notebook finding: annotated on the lines of the .ipynb file where the cell's
    source lines are written, the cell and its line:col named in the title and message."""
    notebook, span, cell = finding.extra["notebook"], finding.span, finding.cell
    where = f"cell {cell}:{span.start.line}:{span.start.column + 1}"
    properties = {
        "file": finding.path,
        "line": notebook.file_line(cell - 1, span.start.line),
        "endLine": notebook.file_line(cell - 1, span.end.line),
        "title": f"{finding.code} ({where})",
    }
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = f"{where}: {finding.message}"
    for step in finding.evidence:
        if step.path and step.path != finding.path:
            place = f"{step.path}:"
        else:
            place = f"cell {step.cell}:" if step.cell is not None else "line "
        message += f"\n{place}{step.span.start.line}:{step.span.start.column + 1}: {step.message}"
    return f"::{COMMANDS[finding.severity]} {props}::{escape_data(message)}"

"""SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers.

Regions are 1-based with an exclusive end column, counted in Unicode code points
(declared by the run's `columnKind`), which is what the analysis reports.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath
from urllib.parse import quote

from .. import __version__
from ..analysis.model import Finding, Severity, Span, Step
from ..rules import RULES
from .report import Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/autograd-lint/autograd-lint"
SOURCE_ROOT = "%SRCROOT%"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def render(report: Report, *, color: bool = False) -> str:
    return json.dumps(document(report), indent=2) + "\n"


def document(report: Report) -> dict:
    rule_index = {code: i for i, code in enumerate(RULES)}
    run = {
        "tool": {"driver": _driver()},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "results": [_result(f, rule_index) for f in report.findings],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _driver() -> dict:
    return {
        "name": "autograd-lint",
        "version": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "helpUri": rule.docs_url,
                "defaultConfiguration": {"level": LEVELS[rule.severity]},
            }
            for rule in RULES.values()
        ],
    }


def _result(finding: Finding, rule_index: dict[str, int]) -> dict:
    result = {
        "ruleId": finding.code,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [_cell_location(finding, finding.path, finding.span, finding.cell)],
    }
    if finding.cell is not None:
        result["properties"] = {"cell": finding.cell, "cellRegion": region(finding.span)}
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.evidence:
        result["relatedLocations"] = [
            {"id": i, **_location(finding, step)} for i, step in enumerate(finding.evidence)
        ]
        thread = [{"location": _location(finding, step)} for step in finding.evidence]
        result["codeFlows"] = [{"threadFlows": [{"locations": thread}]}]
    return result


def _location(finding: Finding, step: Step) -> dict:
    out = _cell_location(finding, step.path or finding.path, step.span, step.cell)
    out["message"] = {"text": step.message}
    return out


def _cell_location(finding: Finding, path: str, span: Span, cell: int | None) -> dict:
    """A location; in a notebook, the lines of the .ipynb file where the cell's source
    lines are written (a viewer can follow them; columns inside JSON strings would not
    match), with the cell and its own region as properties."""
    notebook = finding.extra.get("notebook") if cell is not None else None
    if notebook is None:
        return {"physicalLocation": _physical(path, span)}
    lines = {
        "startLine": notebook.file_line(cell - 1, span.start.line),
        "endLine": notebook.file_line(cell - 1, span.end.line),
    }
    return {
        "physicalLocation": {"artifactLocation": artifact(path), "region": lines},
        "properties": {"cell": cell, "cellRegion": region(span)},
    }


def _physical(path: str, span: Span) -> dict:
    return {"artifactLocation": artifact(path), "region": region(span)}


def artifact(path: str) -> dict:
    pure = PurePath(path)
    if pure.is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(pure.as_posix()), "uriBaseId": SOURCE_ROOT}


def region(span: Span) -> dict:
    return {
        "startLine": span.start.line,
        "startColumn": span.start.column + 1,
        "endLine": span.end.line,
        "endColumn": span.end.column + 1,
    }

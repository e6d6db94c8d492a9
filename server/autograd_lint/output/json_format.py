"""Machine-readable output: 1-based lines, 0-based code-point columns (as in the analysis)."""

from __future__ import annotations

import json

from ..analysis.model import Finding
from .report import Report

VERSION = 1


def finding_to_json(finding: Finding) -> dict:
    out = {
        "path": finding.path,
        "code": finding.code,
        "severity": finding.severity.value,
        "message": finding.message,
    }
    if finding.cell is not None:  # a notebook: the range counts lines from this cell's
        out["cell"] = finding.cell
    if finding.extra.get("source"):  # "runtime": a failing backward only a run found
        out["source"] = finding.extra["source"]
    out["range"] = finding.span.to_json()
    out["evidence"] = [step.to_json() for step in finding.evidence]
    return out


def render(report: Report, *, color: bool = False) -> str:
    document = {
        "version": VERSION,
        "files": report.files_checked,
        "findings": [
            _with_verdict(finding_to_json(f), report.verdicts.get(f)) for f in report.findings
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _with_verdict(document: dict, verdict) -> dict:
    if verdict is not None:
        document["runtime"] = verdict.to_json()
    return document

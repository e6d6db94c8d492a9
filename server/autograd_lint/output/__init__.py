"""Report formats of `autograd-lint check`: one module per format, each with
`render(report, *, color=False) -> str`."""

from __future__ import annotations

from . import github, json_format, sarif, text
from .report import Report

FORMATS = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}

__all__ = ["FORMATS", "Report"]

"""Report formats of `autograd-lint check`: one module per format, each with `render`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..analysis.model import Finding


@dataclass(frozen=True)
class Report:
    findings: list[Finding]
    files_checked: int

    @property
    def files_with_findings(self) -> int:
        return len({f.path for f in self.findings})


def formats() -> dict[str, Callable[..., str]]:
    """Format name → `render(report, *, color=False) -> str`."""
    from . import github, json_format, sarif, text

    return {
        "text": text.render,
        "json": json_format.render,
        "sarif": sarif.render,
        "github": github.render,
    }


FORMAT_NAMES = ("text", "json", "sarif", "github")

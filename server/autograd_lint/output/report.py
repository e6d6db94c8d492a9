"""What every output format renders: the findings of one run and how many files it checked."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.model import Finding


@dataclass(frozen=True)
class Report:
    findings: list[Finding]
    files_checked: int
    # Runtime confirmation (`check --confirm`): finding -> RuntimeVerdict.
    verdicts: dict = field(default_factory=dict)

    @property
    def files_with_findings(self) -> int:
        return len({f.path for f in self.findings})

"""The programs the fixes are proven on, and every rewrite offered for their findings.

Every buggy sample (`samples/*_buggy.py`) and every runnable AG001/AG002 file of the
corpus (first line `# runnable`). A case is one offered fix other than the
suppression comment, which hides a bug without fixing it and is tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograd_lint.analysis import Finding, analyze
from autograd_lint.fixes import Fix, apply_fixes, fixes_for

ROOT = Path(__file__).resolve().parents[2]
RULES = ("AG001", "AG002")


def buggy_programs() -> list[Path]:
    samples = sorted((ROOT / "samples").glob("*_buggy.py"))
    corpus = [
        path
        for path in sorted((ROOT / "tests" / "corpus").glob("*.py"))
        if path.read_text().startswith("# runnable\n")
        and any(f"expect: {code}" in path.read_text() for code in RULES)
    ]
    return samples + corpus


@dataclass(frozen=True)
class Case:
    path: Path
    source: str
    finding: Finding
    fix: Fix

    @property
    def id(self) -> str:
        return f"{self.path.stem}-L{self.finding.span.start.line}-{self.fix.strategy}"

    @property
    def fixed(self) -> str:
        return apply_fixes(self.source, [self.fix])


def findings_of(source: str, path: Path) -> list[Finding]:
    return [f for f in analyze(source, str(path)) if f.code in RULES]


@cache
def all_findings() -> list[tuple[Path, str, Finding]]:
    out = []
    for path in buggy_programs():
        source = path.read_text()
        out.extend((path, source, finding) for finding in findings_of(source, path))
    return out


@cache
def rewrite_cases() -> list[Case]:
    return [
        Case(path, source, finding, fix)
        for path, source, finding in all_findings()
        for fix in fixes_for(source, finding)
        if fix.strategy != "ignore"
    ]

"""The programs the fixes are proven on, and every rewrite offered for their findings.

Every buggy sample (`samples/*_buggy.py`) and every runnable file of the corpus (first
line `# runnable`, or `# runnable: raises ...` for one that torch must see fail) with a
marked finding. A case is one offered fix other than the suppression comment, which
hides a bug without fixing it and is tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograd_lint.analysis import Finding, analyze
from autograd_lint.fixes import Fix, apply_fixes, fix_all, fixes_for
from split_among_workers import computed_in_parts

ROOT = Path(__file__).resolve().parents[2]
RULES = ("AG001", "AG002", "AG003", "AG004", "AG005", "AG006", "AG007")


def buggy_programs() -> list[Path]:
    samples = sorted((ROOT / "samples").glob("*_buggy.py"))
    corpus = [
        path
        for path in sorted((ROOT / "tests" / "corpus").glob("*.py"))
        if path.read_text().startswith(("# runnable\n", "# runnable: raises"))
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

    @property
    def completed(self) -> str:
        """The fixed text after the preferred fixes of the findings this fix leaves too
        (a program with an AG002 and an AG004 on one call runs only when both are fixed);
        the fixed text itself when it has none."""
        return fix_all(self.fixed, path=str(self.path))[0]


def findings_of(source: str, path: Path) -> list[Finding]:
    return [f for f in analyze(source, str(path)) if f.code in RULES]


def _program_cases(path: Path) -> tuple[str, list[Finding], list[Case]]:
    source = path.read_text()
    findings = findings_of(source, path)
    cases = [
        Case(path, source, finding, fix)
        for finding in findings
        for fix in fixes_for(source, finding)
        if fix.strategy != "ignore"
    ]
    return source, findings, cases


@cache
def _cases_by_program() -> list[tuple[Path, str, list[Finding], list[Case]]]:
    """Each program's findings and rewrites, computed at collection (the parametrizations'
    ids name them), so shared among the xdist workers rather than repeated by each."""
    programs = buggy_programs()
    worked = computed_in_parts(
        "fix-cases", programs, lambda part: [_program_cases(path) for path in part]
    )
    return [(path, *result) for path, result in zip(programs, worked, strict=True)]


def all_findings() -> list[tuple[Path, str, Finding]]:
    return [
        (path, source, finding)
        for path, source, findings, _ in _cases_by_program()
        for finding in findings
    ]


def rewrite_cases() -> list[Case]:
    return [case for *_, cases in _cases_by_program() for case in cases]

"""The real-world yardstick: its manifest, and the analyzer's score on it.

`load_manifest()` reads and validates `manifest.json` (README.md here says what each
field means); `score()` runs the analysis on every case and compares it with the
label that torch gave the runnable completion. `bench/realworld.py` prints the score;
`tests/test_realworld.py` checks the manifest, the labels and that the score does not
fall below the floor in `baseline.json`.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
MANIFEST = ROOT / "manifest.json"
BASELINE = ROOT / "baseline.json"
KINDS = {"crash", "correct"}
ERRORS = {"freed", "inplace"}
ID = re.compile(r"[a-z0-9_]+")
FIELDS = {"id", "source", "mechanism", "kind", "file", "line", "runnable", "requires"}
OPTIONAL = {"error", "domain", "project"}
# A crash is found when one of these codes is reported at its failing line; the
# in-place error of a retained, carried graph is AG007's as much as AG001's.
FINDS = {"freed": {"AG001", "AG002"}, "inplace": {"AG001", "AG002", "AG007"}}
# Errors on a correct program: the rules whose findings claim a crash.
ALARMS = {"AG001", "AG002", "AG007"}


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    mechanism: str
    kind: str
    file: str
    line: int | None
    runnable: str
    requires: tuple[str, ...]
    error: str = "freed"
    domain: str = "general"
    # The folder holding the case as a small project (its entry `file` and the modules of
    # the source repository it imports), relative to ROOT; None: the file alone.
    project: str | None = None

    @property
    def path(self) -> Path:
        return ROOT / self.file

    @property
    def project_root(self) -> Path | None:
        return ROOT / self.project if self.project else None

    @property
    def project_modules(self) -> list[Path]:
        """The project's files besides the entry (none for a single-file case)."""
        if self.project_root is None:
            return []
        found = sorted(self.project_root.rglob("*.py"))
        return [p for p in found if p != self.path and "__pycache__" not in p.parts]

    @property
    def files(self) -> list[Path]:
        """Every file of the case the analysis reads: its entry, then its project's modules."""
        return [self.path, *self.project_modules]

    def resolver(self, texts: dict[Path, str] | None = None):
        """How the CLI resolves the entry's imports: within the project root (the case's
        folder, as `autograd-lint check` finds a repository's root), else not at all.
        texts: other contents for the project's modules (a renamed copy, say), read
        instead of the files as the editor's unsaved buffers are."""
        if self.project_root is None:
            return None
        from autograd_lint.workspace import Workspace

        workspace = Workspace(self.project_root)
        for path, text in (texts or {}).items():
            workspace.changed(path, text)
        return workspace.resolve

    @property
    def runnable_path(self) -> Path:
        return ROOT / self.runnable


def problems(entry: dict) -> list[str]:
    """What is wrong with one manifest entry (empty when nothing)."""
    where = entry.get("id", "?")
    found = []
    missing = FIELDS - entry.keys()
    unknown = entry.keys() - FIELDS - OPTIONAL
    if missing:
        found.append(f"{where}: missing {sorted(missing)}")
    if unknown:
        found.append(f"{where}: unknown fields {sorted(unknown)}")
    if missing:
        return found
    if not ID.fullmatch(entry["id"]):
        found.append(f"{where}: id is not [a-z0-9_]+")
    if not re.match(r"https?://\S+$", entry["source"]):
        found.append(f"{where}: source is not a URL")
    if entry["kind"] not in KINDS:
        found.append(f"{where}: kind {entry['kind']!r}")
    if entry.get("error", "freed") not in ERRORS:
        found.append(f"{where}: error {entry['error']!r}")
    line = entry["line"]
    if entry["kind"] == "crash" and not (isinstance(line, int) and line >= 1):
        found.append(f"{where}: a crash needs its failing line")
    if entry["kind"] == "correct" and line is not None:
        found.append(f"{where}: a correct program has line null")
    for key in ("file", "runnable"):
        if not (ROOT / entry[key]).is_file():
            found.append(f"{where}: {key} {entry[key]} does not exist")
    project = entry.get("project")
    if project is not None:
        folder = ROOT / project
        if not folder.is_dir():
            found.append(f"{where}: project {project} is not a folder")
        elif not (ROOT / entry["file"]).resolve().is_relative_to(folder.resolve()):
            found.append(f"{where}: file {entry['file']} is not inside its project {project}")
    if not isinstance(entry["requires"], list):
        found.append(f"{where}: requires is not a list")
    return found


def load_manifest(path: Path = MANIFEST) -> list[Case]:
    entries = json.loads(path.read_text(encoding="utf-8"))
    errors = [problem for entry in entries for problem in problems(entry)]
    if errors:
        raise ValueError("manifest.json:\n  " + "\n  ".join(errors))
    cases = []
    for entry in entries:
        values = dict(entry, requires=tuple(entry["requires"]))
        cases.append(Case(**values))
    return cases


@dataclass
class Verdict:
    case: Case
    codes_at_line: set[str]  # codes reported at the failing line (crashes)
    alarms: list[tuple[int, str]]  # (line, code) of crash-claiming findings
    error: str | None = None  # the analysis raised (never expected)

    @property
    def found(self) -> bool:
        return bool(self.codes_at_line & FINDS[self.case.error])

    @property
    def false_alarm(self) -> bool:
        return self.case.kind == "correct" and bool(self.alarms)


@dataclass
class Score:
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def crashes(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.case.kind == "crash"]

    @property
    def correct(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.case.kind == "correct"]

    @property
    def found(self) -> list[Verdict]:
        return [v for v in self.crashes if v.found]

    @property
    def missed(self) -> list[Verdict]:
        return [v for v in self.crashes if not v.found]

    @property
    def false_alarms(self) -> list[Verdict]:
        return [v for v in self.correct if v.false_alarm]

    @property
    def recall(self) -> float:
        return len(self.found) / max(len(self.crashes), 1)

    def by_mechanism(self) -> dict[str, Counter]:
        table: dict[str, Counter] = defaultdict(Counter)
        for verdict in self.verdicts:
            row = table[verdict.case.mechanism]
            if verdict.case.kind == "crash":
                row["crashes"] += 1
                row["found"] += verdict.found
            else:
                row["correct"] += 1
                row["false alarms"] += verdict.false_alarm
        return dict(sorted(table.items()))

    def summary(self) -> dict:
        return {
            "cases": len(self.verdicts),
            "crashes": len(self.crashes),
            "found": len(self.found),
            "recall": round(self.recall, 3),
            "correct": len(self.correct),
            "false_alarms": len(self.false_alarms),
        }


def case_findings(case: Case, texts: dict[Path, str] | None = None) -> list:
    """The findings on the case's entry, analysed as the CLI analyses it (with its project's
    imports). texts: other contents for files of the case (`case.files`), e.g. renamed."""
    from autograd_lint.analysis import analyze

    texts = dict(texts or {})
    entry = texts.pop(case.path, None)
    if entry is None:
        entry = case.path.read_text(encoding="utf-8")
    return analyze(entry, str(case.path), resolver=case.resolver(texts))


def case_of(path: Path) -> Case | None:
    """The case whose files (entry or project module) include path, if any."""
    resolved = path.resolve()
    for case in load_manifest():
        if any(resolved == file.resolve() for file in case.files):
            return case
    return None


def judge(case: Case) -> Verdict:
    try:
        findings = case_findings(case)
    except Exception as exc:  # noqa: BLE001 - reported as the case's verdict
        return Verdict(case, set(), [], error=f"{type(exc).__name__}: {exc}")
    at_line = {f.code for f in findings if case.line in failing_lines(f)}
    alarms = sorted((f.span.start.line, f.code) for f in findings if f.code in ALARMS)
    return Verdict(case, at_line, alarms)


def failing_lines(finding) -> set[int]:
    """Where a finding says the program raises: its own line (AG001/AG002 sit on the
    failing backward) and the line of its FAILS step (AG007 sits on the in-place op)."""
    from autograd_lint.analysis import Role

    lines = {finding.span.start.line}
    lines.update(s.span.start.line for s in finding.evidence if s.role is Role.FAILS and not s.path)
    return lines


def score(cases: list[Case] | None = None) -> Score:
    return Score([judge(case) for case in (cases if cases is not None else load_manifest())])


def baseline() -> dict:
    return json.loads(BASELINE.read_text(encoding="utf-8"))

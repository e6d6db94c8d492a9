"""Everything the analysis says about the samples, the corpus and the rule examples.

The other static suites check *which* (line, code) pairs are reported, with torch's
verdict as the label. What a user reads is more: the message, the severity, the kind the
fixes key on, the evidence chain (each step's span, role, name and file), the loop and the
extras. A mutation run of the analysis (docs/mutation.md) showed those can change without
any test noticing: an evidence step lost, a message garbled, a kind renamed. This test
renders every field of every finding into tests/snapshots/findings.txt and compares.

When an output change is intended, rewrite the snapshot and read its diff before
committing it:

    python3 tests/test_findings_snapshot.py
"""

from __future__ import annotations

import difflib
import linecache
import sys
from pathlib import Path

from autograd_lint.analysis import analyze
from autograd_lint.rules import RULE_MODULES
from autograd_lint.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "snapshots" / "findings.txt"
UPDATE = "python3 tests/test_findings_snapshot.py"


def _inputs():
    """(label, source, path given to analyze, resolver) for every snapshotted program."""
    for path in sorted((ROOT / "samples").glob("*.py")):
        yield _relative(path), path.read_text(encoding="utf-8"), str(path), None
    # Multi-file samples: their entry scripts, with imports of the project resolved.
    workspace = Workspace(ROOT)
    for path in sorted((ROOT / "samples").glob("project_*/train_*.py")):
        source = path.read_text(encoding="utf-8")
        yield _relative(path), source, str(path), workspace.resolve
    for path in sorted((ROOT / "tests" / "corpus").glob("*.py")):
        yield _relative(path), path.read_text(encoding="utf-8"), str(path), None
    for code, module in RULE_MODULES.items():
        for kind in ("INVALID", "VALID"):
            for index, source in enumerate(getattr(module, kind)):
                yield f"{code} {kind.lower()} example {index}", source, "example.py", None


def _relative(path: str | Path) -> str:
    text = str(path).replace("\\", "/")
    root = str(ROOT).replace("\\", "/") + "/"
    if "/site-packages/" in text:  # a library's file: where it is installed is the machine's
        return "site-packages/" + text.rpartition("/site-packages/")[2]
    return text[len(root) :] if text.startswith(root) else text


def _span(span) -> str:
    return f"{span.start.line}:{span.start.column}-{span.end.line}:{span.end.column}"


def _code_at(path: str, span) -> str:
    """The text `span` covers in the file at `path` (its first line's part only)."""
    line = linecache.getline(path, span.start.line)
    end = span.end.column if span.end.line == span.start.line else len(line.rstrip("\n"))
    return line[span.start.column : end]


def _value(value) -> str:
    if hasattr(value, "start") and hasattr(value, "end"):
        return _span(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    return repr(value)


def render_finding(finding, path: str) -> list[str]:
    head = f"{finding.code} {finding.severity.value} kind={finding.kind!r} at {_span(finding.span)}"
    if finding.path != path:  # every finding names the file it was asked about
        head += f" in {_relative(finding.path)!r}"
    if finding.loop is not None:
        head += f" loop {_span(finding.loop)}"
    if finding.cell is not None:
        head += f" cell {finding.cell}"
    lines = [head, f"  message: {finding.message}"]
    for step in finding.evidence:
        where = _span(step.span)
        if step.path and "/site-packages/" in step.path.replace("\\", "/"):
            # A library's line numbers are its installed version's: the snapshot holds the
            # code the step points at, which a new release moves but keeps.
            where = f"{_relative(step.path)}:{_code_at(step.path, step.span)!r}"
        elif step.path:
            where = f"{_relative(step.path)}:{where}"
        name = f" name={step.name!r}" if step.name is not None else ""
        lines.append(f"  {step.role.value} {where}{name}: {step.message}")
    for key in sorted(finding.extra):
        lines.append(f"  extra {key} = {_value(finding.extra[key])}")
    return lines


def render_all() -> str:
    out = []
    for label, source, path, resolver in _inputs():
        findings = analyze(source, path, resolver=resolver)
        out.append(f"== {label}: {len(findings)} finding{'s' * (len(findings) != 1)}")
        for finding in findings:
            out.extend(render_finding(finding, path))
    return "\n".join(out) + "\n"


def test_every_finding_renders_as_in_the_snapshot():
    assert SNAPSHOT.exists(), f"no snapshot yet: run {UPDATE}"
    expected = SNAPSHOT.read_text(encoding="utf-8")
    actual = render_all()
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "snapshot", "now", lineterm="", n=2
        )
        shown = "\n".join(list(diff)[:120])
        raise AssertionError(f"the analysis output changed (if intended: {UPDATE}):\n{shown}")


def test_the_snapshot_covers_every_rule_and_every_role():
    # A snapshot that lost its inputs (a moved folder, an empty glob) would pass vacuously.
    text = SNAPSHOT.read_text(encoding="utf-8")
    for code in RULE_MODULES:
        assert f"\n{code} " in text, code
    from autograd_lint.analysis import Role

    for role in Role:
        assert f"\n  {role.value} " in text, role


if __name__ == "__main__":
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(render_all(), encoding="utf-8")
    print(f"wrote {_relative(SNAPSHOT)}")
    sys.exit(0)

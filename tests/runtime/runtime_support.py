"""Helpers for the runtime tests: findings built by hand from a script's marks."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from autograd_lint.analysis.model import Finding, Role, Severity, Span, Step
from autograd_lint.runtime.runner import RuntimeOptions
from expectations import expected_marks

SCRIPTS = Path(__file__).resolve().parent / "scripts"
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# Generous: most of a run is importing torch, and the machine may be shared.
TIMEOUT_S = 180


def tagged_line(script: Path, tag: str) -> int:
    """The line whose trailing comment is `# <tag>`."""
    pattern = re.compile(rf"#\s*{re.escape(tag)}\s*$")
    for number, text in enumerate(script.read_text().splitlines(), start=1):
        if pattern.search(text):
            return number
    raise LookupError(f"{script.name} has no '# {tag}' line")


def loop_around(tree: ast.AST, line: int) -> Span | None:
    loops = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.For, ast.While)) and node.lineno <= line <= node.end_lineno
    ]
    if not loops:
        return None
    loop = max(loops, key=lambda node: node.lineno)
    return Span.of(loop.lineno, loop.col_offset, loop.end_lineno, loop.end_col_offset)


def findings_for(script: Path) -> list[Finding]:
    """What the engine would report: a finding per `# expect:` mark, its loop, its built line."""
    source = script.read_text()
    tree = ast.parse(source)
    findings = []
    for line, code in expected_marks(source):
        evidence = []
        try:
            built = tagged_line(script, "built")
            evidence.append(Step(Span.of(built, 0, built, 1), "graph built here", Role.BUILT))
        except LookupError:
            pass
        evidence.append(Step(Span.of(line, 0, line, 1), "backward fails here", Role.FAILS))
        findings.append(
            Finding(
                code=code,
                severity=Severity.ERROR,
                message="backward reaches a freed graph",
                span=Span.of(line, 4, line, 20),
                evidence=tuple(evidence),
                path=str(script),
                loop=loop_around(tree, line),
            )
        )
    return findings


def options(device: str = "cpu", **overrides) -> RuntimeOptions:
    env = {"FIXTURE_DEVICE": "cuda" if device.startswith("cuda") else "cpu"}
    env.update(overrides.pop("env", {}))
    values = {"device": device, "timeout_seconds": TIMEOUT_S, "env": env}
    values.update(overrides)
    return RuntimeOptions(**values)


def process_gone(pid: int) -> bool:
    """True when `pid` no longer runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
        return state in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

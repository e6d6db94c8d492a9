"""A project module's functions run with their own module's names (analysis/module_globals.py).

The pair in tests/corpus/projects/module_own_names/ imports only `Tracker` from
`layers.py`, whose constructor builds a `Memory` that keeps its output on itself between
calls; the scripts define an unrelated `Memory` of their own. Torch gives the labels: the
carried script raises the graph-freed error at its marked backward, the forgetting twin
runs. The analysis, resolving imports within the project as the CLI does, must agree:
`Tracker` builds layers.py's `Memory`, never the script's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.workspace import Workspace
from expectations import expected_marks

PROJECT = Path(__file__).resolve().parent / "corpus" / "projects" / "module_own_names"
SCRIPTS = ["train_carried.py", "train_forgetting.py"]
GRAPH_FREED = "Trying to backward through the graph a second time"


def marks(path: Path) -> list[tuple[int, str]]:
    return sorted(expected_marks(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_analysis_reads_the_module_names_the_class_was_written_with(name):
    path = PROJECT / name
    findings = analyze(
        path.read_text(encoding="utf-8"), str(path), resolver=Workspace(PROJECT).resolve
    )
    assert sorted((f.span.start.line, f.code) for f in findings) == marks(path)


def test_the_carried_memory_is_reported_with_evidence_in_the_module():
    path = PROJECT / "train_carried.py"
    (finding,) = analyze(
        path.read_text(encoding="utf-8"), str(path), resolver=Workspace(PROJECT).resolve
    )
    assert any(step.path == str(PROJECT / "layers.py") for step in finding.evidence)


@pytest.mark.parametrize("name", SCRIPTS)
def test_torch_agrees(name, torch_python):
    path = PROJECT / name
    run = subprocess.run([torch_python, name], cwd=PROJECT, capture_output=True, text=True,
                         timeout=180)  # fmt: skip
    expected = marks(path)
    if expected:
        ((line, _code),) = expected
        assert GRAPH_FREED in run.stderr, run.stderr[-2000:]
        assert f'{name}", line {line}' in run.stderr
    else:
        assert run.returncode == 0, run.stderr[-2000:]

"""The notebook samples: torch's verdict by running their cells, and the checker's by cell.

Each `samples/notebooks/*_buggy.ipynb` marks the failing backward with `# expect: AG001`
in its cell. Running the cells in order (tests/notebooks/run_cells.py, IPython lines not
run; a sample whose metadata names a `rerun_cell` runs that cell again at the end) must
raise torch's "backward through the graph a second time" error from that very line, on
the first run-through or, for a re-run hazard, only on the second run of the cell; each
`*_fixed.ipynb` must run cleanly, re-run included. The checker must then report exactly
the marked (cell, line, code) triples.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from autograd_lint.cli import main
from expectations import expected_marks

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "samples" / "notebooks").glob("*.ipynb"))
RUNNER = ROOT / "tests" / "notebooks" / "run_cells.py"
GRAPH_FREED = "RuntimeError: Trying to backward through the graph a second time"


def marks_by_cell(path: Path) -> set[tuple[int, int, str]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    out = set()
    for number, cell in enumerate(notebook["cells"], start=1):
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            out.update((number, line, code) for line, code in expected_marks(source))
    return out


def rerun_cell(path: Path) -> int | None:
    metadata = json.loads(path.read_text(encoding="utf-8"))["metadata"]
    return metadata.get("autograd_lint_test", {}).get("rerun_cell")


def test_there_are_buggy_and_fixed_pairs():
    names = {p.name for p in NOTEBOOKS}
    buggy = {n for n in names if n.endswith("_buggy.ipynb")}
    assert len(buggy) >= 3
    assert {n.replace("_buggy", "_fixed") for n in buggy} <= names
    assert any(rerun_cell(p) for p in NOTEBOOKS if p.name in buggy)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_torch_agrees_with_the_marks(path, torch_python):
    run = subprocess.run(
        [torch_python, str(RUNNER), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=path.parent,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    marks = marks_by_cell(path)
    if not marks:
        assert result["error"] is None, result
        return
    assert result["error"] and result["error"].startswith(GRAPH_FREED), result
    assert {(result["cell"], result["line"])} == {(cell, line) for cell, line, _ in marks}
    # A re-run hazard works on the first run-through and fails only when run again.
    assert result["run"] == (2 if rerun_cell(path) else 1)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_checker_reports_the_marks_by_cell(path, capsys):
    code = main(["check", "--format", "json", str(path)])
    document = json.loads(capsys.readouterr().out)
    found = {(f["cell"], f["range"]["start"]["line"], f["code"]) for f in document["findings"]}
    assert found == marks_by_cell(path)
    assert code == (1 if found else 0)
    if found and rerun_cell(path):
        (finding,) = document["findings"]
        assert finding["severity"] == "warning"  # the run-through works: only a re-run fails
        assert f"fails when cell {rerun_cell(path)} is run again" in finding["message"]


@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if p.name.endswith("_buggy.ipynb")], ids=lambda p: p.name
)
def test_fix_makes_the_notebook_run(path, tmp_path, monkeypatch, capsys, torch_python):
    """`check --fix` repairs each buggy notebook: clean to the checker, and torch runs its
    cells (the re-run included) without the error."""
    fixed = tmp_path / path.name
    fixed.write_bytes(path.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--fix", fixed.name]) == 0
    capsys.readouterr()
    assert fixed.read_bytes() != path.read_bytes()
    run = subprocess.run(
        [torch_python, str(RUNNER), str(fixed)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {"error": None}

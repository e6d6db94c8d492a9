"""Runtime discovery in a notebook: `check --confirm=always` runs the code cells in order
as one script, and a failing backward no finding names is reported as a finding by cell.

The notebook is the opaque-cache program (a cache in a closure, standing in for a C
extension's) cut into cells, with a magic line the run must skip. Ground truth comes from
running the cells in order, as a kernel would (tests/notebooks/run_cells.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from autograd_lint.cli import main
from runtime_support import TIMEOUT_S
from warm_python import WarmPython

RUN_CELLS = Path(__file__).resolve().parents[1] / "notebooks" / "run_cells.py"
FREED = "Trying to backward through the graph a second time"

CELLS = [
    ("markdown", "# A cache the analysis cannot see"),
    (
        "code",
        """import torch


def make_cache():
    store = {}

    def fetch(key, build):
        if key not in store:
            store[key] = build()
        return store[key]

    return fetch""",
    ),
    (
        "code",
        """fetch = make_cache()
table = torch.randn(4, 3)
proj = torch.nn.Linear(3, 3)
data = torch.randn(6, 3)""",
    ),
    (
        "code",
        """%time
for _step in range(4):
    keys = fetch("keys", lambda: torch.tanh(proj(table)))
    loss = (data @ keys.t()).pow(2).mean()
    loss.backward()""",
    ),
]


def write_notebook(path: Path) -> None:
    cells = [
        {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
        | ({"outputs": [], "execution_count": None} if kind == "code" else {})
        for kind, text in CELLS
    ]
    notebook = {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))


@pytest.fixture(scope="module")
def warm():
    with WarmPython() as interpreter:
        yield interpreter


def test_a_failure_no_finding_names_is_found_at_runtime_by_cell(warm, tmp_path, capsys):
    notebook = tmp_path / "cache.ipynb"
    write_notebook(notebook)
    kernel = subprocess.run(
        [str(warm.shim), str(RUN_CELLS), str(notebook)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=True,
    )
    truth = json.loads(kernel.stdout)
    assert FREED in truth["error"] and (truth["cell"], truth["line"]) == (4, 5), truth

    assert main(["check", "--format", "json", str(notebook)]) == 0  # the analysis sees nothing
    capsys.readouterr()
    arguments = ["check", "--format", "json", "--confirm=always", "--confirm-device", "cpu"]
    code = main([*arguments, "--confirm-python", str(warm.shim), str(notebook)])
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    assert finding["source"] == "runtime" and finding["code"] == "AG001"
    assert (finding["cell"], finding["range"]["start"]["line"]) == (truth["cell"], truth["line"])
    assert "found at runtime" in finding["message"]
    # The message names lines of other cells by cell; its own cell's lines plainly.
    assert "built at line 3 in iteration 1" in finding["message"]
    runtime = finding["runtime"]
    assert runtime["status"] == "confirmed"
    assert (runtime["cell"], runtime["line"], runtime["iteration"]) == (4, 5, 2)
    assert (runtime["builtCell"], runtime["builtLine"]) == (4, 3)  # the cached forward
    assert (runtime["freedCell"], runtime["freedLine"]) == (4, 5)
    # The evidence steps point into the notebook's cells.
    assert {(step.get("cell"), step["range"]["start"]["line"]) for step in finding["evidence"]} >= {
        (4, 3),
        (4, 5),
    }
    # The hidden script the cells ran as is gone.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.ipynb"]


def test_confirm_alone_runs_no_notebook_without_a_finding(warm, tmp_path, capsys):
    notebook = tmp_path / "cache.ipynb"
    write_notebook(notebook)
    arguments = ["check", "--format", "json", "--confirm", "--confirm-device", "cpu"]
    assert main([*arguments, "--confirm-python", str(warm.shim), str(notebook)]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []

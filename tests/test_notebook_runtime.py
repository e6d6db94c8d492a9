"""`check --confirm` on notebooks: the cells run in order as one script under the harness
(magics skipped), a re-run hazard with its cell run twice, and verdicts given by cell."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from autograd_lint.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "notebooks"


def test_verdicts_map_back_to_cells(tmp_path, monkeypatch, capsys, torch_python):
    for name in ("rnn_hidden_buggy.ipynb", "rerun_hidden_buggy.ipynb"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    # The runs start from the warm interpreter (tests/conftest.py): torch imported once.
    command = ["check", "--format", "json", "--confirm", "--confirm-device", "cpu", "."]
    code = main([*command, "--confirm-python", torch_python])
    assert code == 1
    findings = {f["path"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
    carried = findings["rnn_hidden_buggy.ipynb"]["runtime"]
    assert carried["status"] == "confirmed", carried
    # The failing backward and the stale node's forward, in the notebook's own cells.
    assert (carried["cell"], carried["line"], carried["iteration"]) == (5, 8, 2)
    assert (carried["builtCell"], carried["builtLine"]) == (3, 9)
    rerun = findings["rerun_hidden_buggy.ipynb"]["runtime"]
    assert rerun["status"] == "confirmed", rerun
    assert (rerun["cell"], rerun["line"]) == (5, 7)  # the second run of cell 5
    # The hidden script the cells ran as is gone.
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "rerun_hidden_buggy.ipynb",
        "rnn_hidden_buggy.ipynb",
    ]

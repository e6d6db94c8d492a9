"""A second real editor: Emacs with eglot (no related information, so the evidence chain
is in the message) shows the AG001 diagnostic after wide characters and the hover."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_helpers import SAMPLES

SCRIPT = Path(__file__).resolve().parent / "emacs" / "check.el"
WIDE_PREFIX = '_ = "日本😀"; '
EMACS = shutil.which("emacs")

pytestmark = pytest.mark.skipif(
    EMACS is None, reason="needs Emacs with eglot (apt-get install emacs-nox elpa-eglot)"
)


def test_eglot_shows_the_diagnostic_its_evidence_and_the_hover(tmp_path):
    text = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    text = text.replace("    loss.backward()", f"    {WIDE_PREFIX}loss.backward()")
    file = tmp_path / "train.py"
    file.write_text(text, encoding="utf-8")
    env = dict(os.environ, HOME=str(tmp_path))  # eglot and flymake write under ~/.emacs.d
    env["AGL_SERVER"] = str(Path(sys.executable).with_name("autograd-lint"))
    env["AGL_FILE"] = str(file)
    run = subprocess.run(
        [EMACS, "--batch", "-q", "-l", str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "DONE"

    (ag001,) = [line for line in lines if line.startswith("DIAG ") and "[AG001]" in line]
    _, row, offset, kind, _ = ag001.split(" ", 4)
    source_line = text.split("\n")[int(row) - 1]
    # Emacs counts characters: the squiggle starts right after the wide ones, on `loss`.
    assert int(offset) == source_line.index("loss.backward()")
    assert kind == "eglot-error"

    evidence = next(line for line in lines if line.startswith("EVIDENCE "))
    assert "`hidden` carries the graph into the next iteration" in evidence
    assert "reaches the freed graph again" in evidence

    hover = "\n".join(lines[lines.index(next(x for x in lines if x.startswith("HOVER "))) :])
    assert "**AG001**" in hover and "`hidden = hidden.detach()`" in hover

"""A real editor: headless Neovim starts `autograd-lint lsp`, shows the AG001 diagnostic of
a buggy sample (with wide characters before the backward) and its hover story."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "nvim" / "check.lua"
FIX_SCRIPT = ROOT / "tests" / "nvim" / "fix.lua"
SAMPLE = ROOT / "samples" / "ag001_rnn_hidden_buggy.py"
WIDE_PREFIX = '_ = "日本😀"; '
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="needs Neovim (apt-get install neovim)")


def run_nvim(file: Path, home: Path, script: Path = SCRIPT) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # Keep Neovim's state (lsp.log, shada) out of the real home directory.
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[name] = str(home / name.lower())
    env["AGL_SERVER_CMD"] = json.dumps(
        [str(Path(sys.executable).with_name("autograd-lint")), "lsp"]
    )
    env["AGL_FILE"] = str(file)
    return subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-c", f"luafile {script}"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=file.parent,
    )


def test_neovim_shows_the_diagnostic_and_the_hover(tmp_path):
    text = SAMPLE.read_text(encoding="utf-8").replace(
        "    loss.backward()", f"    {WIDE_PREFIX}loss.backward()"
    )
    file = tmp_path / "train.py"
    file.write_text(text, encoding="utf-8")
    run = run_nvim(file, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "DONE"

    diagnostics = [line.split(" ", 5) for line in lines if line.startswith("DIAG ")]
    ag001 = [d for d in diagnostics if d[4] == "AG001"]
    assert len(ag001) == 1
    _, row, column, severity, _, message = ag001[0]
    source_line = text.split("\n")[int(row)]
    assert source_line.rstrip().endswith("loss.backward()  # expect: AG001")
    # Neovim keeps byte columns: the squiggle starts right after the wide characters.
    start = source_line.index("loss.backward()")
    assert int(column) == len(source_line[:start].encode("utf-8"))
    assert severity == "1"  # vim.diagnostic.severity.ERROR
    assert "`hidden` carries the graph" in message

    hover = "\n".join(lines[lines.index(next(x for x in lines if x.startswith("HOVER "))) :])
    assert "**AG001**" in hover
    assert "`hidden` still holds the autograd graph" in hover
    assert "Why not `retain_graph=True`?" in hover
    assert "`hidden = hidden.detach()`" in hover


def test_neovim_applies_the_preferred_quick_fix(tmp_path):
    file = tmp_path / "train.py"
    file.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    run = run_nvim(file, tmp_path, FIX_SCRIPT)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "FIXED", run.stdout
    assert any(line.startswith("TITLE Detach `hidden`") for line in lines), run.stdout
    fixed = file.read_text(encoding="utf-8")
    assert "hidden = hidden.detach()" in fixed
    # the file Neovim wrote is what the fix promised: run it with torch, it must not raise
    proc = subprocess.run(
        [sys.executable, str(file)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr

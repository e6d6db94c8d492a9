"""docs/editors.md's Neovim 0.7-0.10 configuration, as written, as Neovim's init.lua: opening
a buggy training script gets the AG001 diagnostic, with nothing but that file configured."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NVIM = shutil.which("nvim")
# Waits for the first autograd-lint diagnostic, prints them all, quits.
REPORT = """\
local ok = vim.wait(60000, function()
  return #vim.diagnostic.get(0) > 0
end, 100)
for _, d in ipairs(vim.diagnostic.get(0)) do
  io.stdout:write(("DIAG %d %s %s\\n"):format(d.lnum, tostring(d.code), d.source or ""))
end
io.stdout:write(("FILETYPE %s CLIENTS %d\\n"):format(vim.bo.filetype, #vim.lsp.buf_get_clients(0)))
vim.cmd(ok and "qall!" or "cquit! 1")
"""

pytestmark = pytest.mark.skipif(NVIM is None, reason="needs Neovim (apt-get install neovim)")


def docs_config() -> str:
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- nvim-0.7-config -->\n```lua\n(.*?)```", text, re.DOTALL)
    assert match, "docs/editors.md lost its Neovim 0.7 configuration"
    return match.group(1)


def test_the_documented_config_starts_the_server_on_a_python_file(tmp_path):
    home = tmp_path / "home"
    config = home / "config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(docs_config(), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.autograd-lint]\n", encoding="utf-8")
    shutil.copy(ROOT / "samples" / "ag001_rnn_hidden_buggy.py", project / "train.py")
    report = tmp_path / "report.lua"
    report.write_text(REPORT, encoding="utf-8")
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[name] = str(home / name.lower().removeprefix("xdg_").removesuffix("_home"))
    # `autograd-lint` on PATH, as the config expects.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    # The user's init.lua (XDG_CONFIG_HOME/nvim/init.lua), filetype detection on, as a
    # plain `nvim train.py` has it.
    run = subprocess.run(
        [NVIM, "--headless", "-n", "train.py", "-c", f"luafile {report}"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=project,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert "FILETYPE python CLIENTS 1" in lines
    assert "DIAG 40 AG001 autograd-lint" in lines  # line 41, 0-based

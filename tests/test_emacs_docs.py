"""The Emacs configurations in README.md and docs/editors.md, as written, as the user's init
file: Emacs (batch, with Debian's elpa-eglot) opens a buggy sample, the hook the snippet adds
starts eglot with `autograd-lint lsp` from PATH, and the AG001 diagnostic arrives; the
editors.md one also sends its workspace configuration (AG001 as a warning)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EMACS = shutil.which("emacs")
pytestmark = pytest.mark.skipif(
    EMACS is None, reason="needs Emacs with eglot (apt-get install emacs-nox elpa-eglot)"
)

# Before it, what an interactive Emacs does first and batch Emacs does not: activate the
# installed packages (elpa-eglot's autoloads: `eglot-ensure`).
PRELUDE = "(require 'package)\n(package-activate-all)\n"

# After the user's init file: open the file, run what the snippet's hook queued (eglot-ensure
# connects from post-command-hook, which batch Emacs never runs on its own), wait for AG001.
DRIVER = r"""
(require 'flymake)
(find-file (getenv "AGL_FILE"))
(run-hooks 'post-command-hook)
(let ((deadline (+ (float-time) 90)) (found nil))
  (while (and (not found) (< (float-time) deadline))
    (when (bound-and-true-p flymake-mode) (flymake-start))
    (accept-process-output nil 0.1)
    (setq found (seq-find (lambda (d) (string-match-p "AG001" (flymake-diagnostic-text d)))
                          (flymake-diagnostics))))
  (if (not found)
      (progn (princ "FAIL no AG001\n") (kill-emacs 1))
    (princ (format "DIAG %s %s\n" (flymake-diagnostic-type found)
                   (car (split-string (flymake-diagnostic-text found) "\n"))))
    (eglot-shutdown (eglot-current-server))
    (kill-emacs 0)))
"""


def snippets() -> list[tuple[str, str]]:
    found = []
    for page in (ROOT / "README.md", ROOT / "docs" / "editors.md"):
        for body in re.findall(r"```elisp\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            found.append((page.name, body))
    return found


@pytest.mark.parametrize(("page", "config"), snippets(), ids=lambda v: v[:30])
def test_the_documented_emacs_config_works_as_written(page, config, tmp_path):
    sample = (ROOT / "samples" / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    file = tmp_path / "project" / "train.py"
    file.parent.mkdir()
    file.write_text(sample, encoding="utf-8")
    (file.parent / ".git").mkdir()  # a project root for eglot
    init = tmp_path / "init.el"
    init.write_text(config, encoding="utf-8")
    prelude = tmp_path / "prelude.el"
    prelude.write_text(PRELUDE, encoding="utf-8")
    driver = tmp_path / "driver.el"
    driver.write_text(DRIVER, encoding="utf-8")
    bin_dir = str(Path(sys.executable).parent)  # where `autograd-lint` is installed
    env = dict(os.environ, HOME=str(tmp_path), AGL_FILE=str(file))
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    run = subprocess.run(
        # -q, not -Q: Debian's site-start puts elpa-eglot on the load path.
        [EMACS, "--batch", "-q", "-l", str(prelude), "-l", str(init), "-l", str(driver)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=file.parent,
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    (diag,) = [line for line in run.stdout.splitlines() if line.startswith("DIAG ")]
    severity = "warning" if ':AG001 "warning"' in config else "error"
    assert diag.startswith(f"DIAG eglot-{severity} "), diag
    assert "carries the graph" in diag

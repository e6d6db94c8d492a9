"""The README's and the docs' examples are true: every `autograd-lint` command shown with its
output prints that output (each shown line, in order; `...` stands for lines left out), and
every `[tool.autograd-lint]` table is a configuration autograd-lint accepts.

Two shapes of example are read:

    ```text                                   ```sh
    $ autograd-lint check samples/x.py        autograd-lint check --confirm samples/x.py
    samples/x.py:40:5: AG001 error: ...       #     runtime: confirmed at runtime: ...
    ```                                       ```

Commands run from the repository root with this interpreter's `autograd-lint`.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from autograd_lint.config import Settings, read_pyproject

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[str, str, list[str]]]:
    """(page, command, the output lines it shows)."""
    found = []
    for page in PAGES:
        for language, body in BLOCK.findall(page.read_text(encoding="utf-8")):
            lines = body.splitlines()
            for i, line in enumerate(lines):
                if language == "text" and line.startswith("$ autograd-lint "):
                    command = line[2:]
                    shown = []
                    for later in lines[i + 1 :]:
                        if later.startswith("$ "):
                            break
                        shown.append(later)
                elif language == "sh" and line.startswith("autograd-lint "):
                    command = line.split("  #")[0].strip()
                    shown = []
                    for later in lines[i + 1 :]:
                        if not later.startswith("# "):
                            break
                        shown.append(later[2:])
                else:
                    continue
                if shown:
                    found.append((page.name, command, shown))
    return found


def tables() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for language, body in BLOCK.findall(page.read_text(encoding="utf-8")):
            if language == "toml" and body.lstrip().startswith("[tool.autograd-lint]"):
                found.append((page.name, body))
    return found


EXAMPLES = examples()


def test_the_pages_have_examples():
    # Guards the parametrisation below against silently testing nothing.
    assert len(EXAMPLES) >= 4 and len(tables()) >= 2


@pytest.mark.parametrize("page,command,shown", EXAMPLES, ids=[c for _, c, _ in EXAMPLES])
def test_command_prints_what_the_page_shows(page, command, shown):
    argv = shlex.split(command)
    scripts = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": scripts + os.pathsep + os.environ["PATH"], "NO_COLOR": "1"}
    env["OMP_NUM_THREADS"] = "1"
    run = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    printed = [line.rstrip() for line in run.stdout.splitlines()]
    position = 0
    for line in shown:
        if line.strip() in ("...", "…") or not line.strip():
            continue
        assert line.rstrip() in printed[position:], f"{page}: {command!r} did not print {line!r}"
        position = printed.index(line.rstrip(), position) + 1


@pytest.mark.parametrize("page,table", tables(), ids=[p for p, _ in tables()])
def test_configuration_tables_are_accepted(page, table, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(table, encoding="utf-8")
    settings = read_pyproject(pyproject)  # raises ConfigError on anything it refuses
    assert isinstance(settings, Settings) and settings.root == tmp_path

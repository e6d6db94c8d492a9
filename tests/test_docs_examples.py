"""The README's and the docs' examples are true: every `autograd-lint` command shown with its
output prints that output (each shown line, in order; `...` stands for lines left out), and
every `[tool.autograd-lint]` table is a configuration autograd-lint accepts.

Two shapes of example are read:

    ```text                                   ```sh
    $ autograd-lint check samples/x.py        autograd-lint check --confirm samples/x.py
    samples/x.py:40:5: AG001 error: ...       #     runtime: confirmed at runtime: ...
    ```                                       ```

Commands run from the repository root with this interpreter's `autograd-lint`; a shown line
may be found on stdout or stderr, and one ending in `...` stands for any line it begins. A
block right after `<!-- example folder: train.py = samples/x.py, ... -->` runs its commands
in order in a fresh folder holding those copies (so `--fix` there changes only the copies);
there a command shown with no output is run too (a later one may see what it changed), and,
as a transcript shows all a command prints, it must print nothing and exit 0.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from autograd_lint.config import Settings, read_pyproject

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


FOLDER = re.compile(r"<!-- example folder: (.*?) -->\s*$")


def _commands(language: str, body: str, silent: bool = False) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown for it) for each command of a block; one shown with
    no output only if `silent` (outside a folder, such lines are synopses, which
    test_cli_docs.py checks)."""
    found = []
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
        if shown or silent:
            found.append((command, shown))
    return found


def _blocks():
    """(page, the folder a marked block runs in or None, language, body)."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            folder = FOLDER.search(text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1])
            yield page, folder.group(1) if folder else None, match.group(1), match.group(2)


def examples() -> list[tuple[str, str, list[str]]]:
    """(page, command, the output lines it shows), run from the repository root."""
    found = []
    for page, folder, language, body in _blocks():
        if folder is None:
            found.extend(
                (page.name, command, shown) for command, shown in _commands(language, body)
            )
    return found


def folder_examples() -> list[tuple[str, dict[str, str], list[tuple[str, list[str]]]]]:
    """(page, {name in the folder: repository file}, the block's commands in order)."""
    found = []
    for page, folder, language, body in _blocks():
        if folder is not None:
            files = dict(entry.split(" = ") for entry in folder.split(", "))
            found.append((page.name, files, _commands(language, body, silent=True)))
    return found


def tables() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for language, body in BLOCK.findall(page.read_text(encoding="utf-8")):
            if language == "toml" and body.lstrip().startswith("[tool.autograd-lint]"):
                found.append((page.name, body))
    return found


EXAMPLES = examples()
FOLDER_EXAMPLES = folder_examples()


def test_the_pages_have_examples():
    # Guards the parametrisation below against silently testing nothing.
    assert len(EXAMPLES) >= 4 and len(tables()) >= 2 and len(FOLDER_EXAMPLES) >= 2


def run_command(command: str, cwd: Path) -> subprocess.CompletedProcess:
    scripts = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": scripts + os.pathsep + os.environ["PATH"], "NO_COLOR": "1"}
    env["OMP_NUM_THREADS"] = "1"
    argv = shlex.split(command)
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def run_and_compare(page: str, command: str, shown: list[str], cwd: Path) -> None:
    run = run_command(command, cwd)
    assert run.returncode in (0, 1), run.stderr
    streams = [[line.rstrip() for line in out.splitlines()] for out in (run.stdout, run.stderr)]
    positions = [0, 0]
    for line in shown:
        if line.strip() in ("...", "…") or not line.strip():
            continue
        line = line.rstrip()
        for s, printed in enumerate(streams):
            later = range(positions[s], len(printed))
            hits = [
                i
                for i in later
                if printed[i] == line or (line.endswith("...") and printed[i].startswith(line[:-3]))
            ]
            if hits:
                positions[s] = hits[0] + 1
                break
        else:
            pytest.fail(f"{page}: {command!r} did not print {line!r}:\n{run.stdout}{run.stderr}")


@pytest.mark.parametrize("page,command,shown", EXAMPLES, ids=[c for _, c, _ in EXAMPLES])
def test_command_prints_what_the_page_shows(page, command, shown):
    run_and_compare(page, command, shown, ROOT)


@pytest.mark.parametrize(
    "page,files,commands", FOLDER_EXAMPLES, ids=[f"{p}:{c[0][0]}" for p, _, c in FOLDER_EXAMPLES]
)
def test_folder_example_prints_what_the_page_shows(page, files, commands, tmp_path):
    for name, source in files.items():
        shutil.copy(ROOT / source, tmp_path / name)
    for command, shown in commands:  # in order: a --fix changes what the next one sees
        if shown:
            run_and_compare(page, command, shown, tmp_path)
            continue
        run = run_command(command, tmp_path)
        printed = run.stdout + run.stderr
        assert run.returncode == 0 and not printed, f"{page}: {command!r} shown silent:\n{printed}"


@pytest.mark.parametrize("page,table", tables(), ids=[p for p, _ in tables()])
def test_configuration_tables_are_accepted(page, table, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(table, encoding="utf-8")
    settings = read_pyproject(pyproject)  # raises ConfigError on anything it refuses
    assert isinstance(settings, Settings) and settings.root == tmp_path

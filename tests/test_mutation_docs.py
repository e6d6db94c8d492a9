"""docs/mutation.md's commands, as far as CI can take them (a mutation run takes hours): the
requirements file it installs exists and pins the version the page names, and each
`bench/mutation.py` command names only options the script has and analysis modules that
exist."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from help_options import declared_options

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "mutation.md").read_text(encoding="utf-8")


def commands() -> list[str]:
    found = []
    for block in re.findall(r"```sh\n(.*?)```", PAGE, re.DOTALL):
        for command in block.replace("\\\n", " ").splitlines():
            found.append(command.split("  #")[0].strip())
    return [c for c in found if c]


COMMANDS = commands()


def test_the_install_line_pins_the_version_it_names():
    (install,) = [c for c in COMMANDS if " pip install " in c]
    requirements = ROOT / shlex.split(install)[-1]
    pinned = re.search(r"^mutmut==(\S+)$", requirements.read_text(encoding="utf-8"), re.M)
    named = re.search(r"mutmut (\S+)", PAGE.split(install, 1)[1].splitlines()[0])
    assert pinned and named and pinned.group(1) == named.group(1)


@pytest.mark.parametrize("command", [c for c in COMMANDS if "bench/mutation.py" in c])
def test_each_mutation_command_names_real_options_and_modules(command):
    argv = shlex.split(command)
    help_text = subprocess.run(
        [sys.executable, "bench/mutation.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    options = [word.split("=")[0] for word in argv if word.startswith("--")]
    assert options and [o for o in options if o not in declared_options(help_text)] == []
    if "--modules" in argv:
        modules = _values_of(argv, "--modules")
        analysis = ROOT / "server" / "autograd_lint" / "analysis"
        exists = [
            (analysis / f"{m}.py").exists() or (analysis / m / "__init__.py").exists()
            for m in modules
        ]
        assert modules and all(exists), list(zip(modules, exists))
    if "--functions" in argv:
        names = _values_of(argv, "--functions")
        assert names and [n for n in names if not _defined(n)] == []


def _values_of(argv: list[str], option: str) -> list[str]:
    """The words after `option` up to the next option."""
    found = []
    for word in argv[argv.index(option) + 1 :]:
        if word.startswith("--"):
            break
        found.append(word)
    return found


def _defined(dotted: str) -> bool:
    """Whether `module.function` or `module.Class.method` is defined in analysis/."""
    module, _, rest = dotted.partition(".")
    owner, _, function = rest.rpartition(".")
    path = ROOT / "server" / "autograd_lint" / "analysis" / f"{module}.py"
    if not path.exists():
        return False
    body = ast.parse(path.read_text(encoding="utf-8")).body
    if owner:
        classes = [n for n in body if isinstance(n, ast.ClassDef) and n.name == owner]
        body = [n for c in classes for n in c.body]
    return any(isinstance(n, ast.FunctionDef) and n.name == function for n in body)

"""scripts/add_rule.py, run on a copy of the repository: a new rule in one module."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "scripts/add_rule.py"


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The parts of the repository the scaffold and the generator read and write."""
    root = tmp_path_factory.mktemp("repo")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(
        ROOT / "server" / "autograd_lint", root / "server" / "autograd_lint", ignore=skip
    )
    shutil.copytree(ROOT / "scripts", root / "scripts", ignore=skip)
    shutil.copytree(ROOT / "docs" / "rules", root / "docs" / "rules")
    (root / "samples").mkdir()
    for name in ("README.md", "package.json"):
        shutil.copy(ROOT / name, root / name)
    return root


def run(root: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    """The copy's script (or `code`), importing the copy's autograd_lint."""
    command = ["-c", code] if code else [str(root / SCRIPT), *args, "--root", str(root)]
    return subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root / "server")},
        timeout=120,
    )


def test_scaffolds_the_module_samples_and_generated_docs(copy):
    made = run(copy, "AG008", "grad-never-read", "--title", "gradient never read")
    assert made.returncode == 0, made.stderr
    assert (copy / "server/autograd_lint/rules/ag008.py").is_file()
    assert (copy / "samples/ag008_grad_never_read_buggy.py").is_file()
    assert (copy / "samples/ag008_grad_never_read_fixed.py").is_file()
    page = (copy / "docs/rules/AG008.md").read_text(encoding="utf-8")
    assert page.startswith("# AG008 `grad-never-read`") and "Default severity: **warning**" in page
    readme = (copy / "README.md").read_text(encoding="utf-8")
    assert "| [AG008](docs/rules/AG008.md) | grad-never-read | warning | gradient never read |" in (
        readme
    )
    manifest = json.loads((copy / "package.json").read_text(encoding="utf-8"))
    severity = manifest["contributes"]["configuration"]["properties"]["autograd-lint.severity"]
    assert list(severity["properties"])[-1] == "AG008"
    # Everything generated is up to date right after the scaffold.
    again = run(
        copy, code="import runpy; runpy.run_path('scripts/gen_rule_docs.py', run_name='__main__')"
    )
    assert "nothing (up to date)" in again.stdout, again.stdout + again.stderr

    # The registry knows the rule; its placeholder INVALID example is not reported yet (so
    # tests/test_rule_examples.py is red until a check exists), its VALID one is quiet.
    probe = run(
        copy,
        code=(
            "import json\n"
            "from autograd_lint.analysis import analyze\n"
            "from autograd_lint.rules import RULE_MODULES, RULES, severity_of, CONFIRMABLE\n"
            "m = RULE_MODULES['AG008']\n"
            "print(json.dumps([RULES['AG008'].title, severity_of('AG008').value,\n"
            "    'AG008' in CONFIRMABLE, [f.code for f in analyze(m.INVALID[0])],\n"
            "    [f.code for f in analyze(m.VALID[0])], '# expect: AG008' in m.INVALID[0]]))\n"
        ),
    )
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == ["gradient never read", "warning", False, [], [], True]


def test_refuses_a_taken_code_and_bad_input(copy):
    taken = run(copy, "AG001", "something-else", "--title", "t")
    assert taken.returncode == 2 and "AG001 exists already" in taken.stderr
    bad = run(copy, "AG1", "x", "--title", "t")
    assert bad.returncode == 2 and "three digits" in bad.stderr
    assert not list((copy / "samples").glob("ag001_*"))


def test_confirmable_and_severity_flags(copy):
    made = run(
        copy, "AG009", "raises-later", "--title", "t9", "--severity", "error", "--confirmable"
    )
    assert made.returncode == 0, made.stderr
    probe = run(
        copy,
        code="from autograd_lint.rules import RULES as R; print(R['AG009'].severity.value, R['AG009'].confirmable)",
    )
    assert probe.stdout.split() == ["error", "True"], probe.stderr
    assert "Runtime confirmation" in (copy / "docs/rules/AG009.md").read_text(encoding="utf-8")

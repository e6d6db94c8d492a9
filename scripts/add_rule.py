"""Scaffold a new rule: its module, a buggy and a fixed sample, and its generated docs.

    python scripts/add_rule.py AG008 detach-in-closure --title "..." [--severity warning]
        [--summary "..."] [--what "..."] [--confirmable]

writes server/autograd_lint/rules/ag008.py (metadata, docs sections and examples to fill
in), samples/ag008_<name>_buggy.py and _fixed.py, then runs scripts/gen_rule_docs.py so
that docs/rules/AG008.md, the README table and package.json's settings know the rule.
The new rule's INVALID example is marked `# expect: AG008` on purpose: the suite stays
red until a check reports it. The check itself goes in `analysis/` (a module in
`analysis/checks/` registered in `run_checks`, or the interpreter's reporter) and makes
its findings with `checks.scopes.finding(CODE, message, ...)`, which takes the severity
from the rule module; its message texts belong in the module's `MESSAGES`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"AG\d{3}")
NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
SEVERITIES = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}

MODULE = '''"""{code} {name}: {summary}.

What it does
    TODO: the code shapes this rule flags, and the ones it deliberately leaves alone.

Why it is bad
    TODO: what happens when the code runs: the error torch raises, or the silent damage.

Example
    TODO: a few lines of the bug, with the reported line marked `# {code}`.

Fix
    TODO: the change that makes the code right.
"""

from ..analysis.model import Severity
from . import Rule

RULE = Rule(
    {code_text},
    {name_text},
    Severity.{severity},
    {summary_text},
    title={title_text},
    what={what_text},{confirmable}
)

# What its findings say, by kind: the check asks for them with
# `analysis.report.rule_message({code_text}, kind, **fields)` and fills the named fields.
MESSAGES = {{
    "TODO-kind": "TODO: what a finding says, e.g. `{{name}}` is ...",
}}

# Code the rule must leave alone (the tests analyse each; none may have a finding).
VALID = [
    """
import torch
model = torch.nn.Linear(4, 1)
loss = model(torch.randn(2, 4)).sum()
loss.backward()
""",
]

# Code the rule must flag: end each reported line with `# expect: {code}`. The suite
# fails until a check reports this placeholder's mark: replace it with the real bug.
INVALID = [
    """
import torch
model = torch.nn.Linear(4, 1)
loss = model(torch.randn(2, 4)).sum()  # expect: {code}
loss.backward()
""",
]
'''

SAMPLE = '''"""TODO: a small, complete training script (CPU, random data, a second or two) {what}.

{which}: TODO: say what is {state} and what happens when it runs.
"""

import torch

torch.manual_seed(0)
# TODO: the script. {mark}
'''


def _literal(text: str) -> str:
    # A JSON string is a Python string literal, in the double quotes ruff format keeps.
    return json.dumps(text, ensure_ascii=False)


def paths(root: Path, code: str, name: str) -> dict[str, Path]:
    slug = name.replace("-", "_")
    return {
        "module": root / "server" / "autograd_lint" / "rules" / f"{code.lower()}.py",
        "buggy": root / "samples" / f"{code.lower()}_{slug}_buggy.py",
        "fixed": root / "samples" / f"{code.lower()}_{slug}_fixed.py",
    }


def scaffold(
    root: Path,
    code: str,
    name: str,
    title: str,
    severity: str = "warning",
    summary: str | None = None,
    what: str | None = None,
    confirmable: bool = False,
) -> dict[str, Path]:
    """Write the three files; refuse to overwrite anything. Returns what it wrote."""
    if not CODE.fullmatch(code):
        raise ValueError(f"a rule code is AG and three digits, not {code!r}")
    if not NAME.fullmatch(name):
        raise ValueError(f"a rule name is lowercase-with-hyphens, not {name!r}")
    if severity not in SEVERITIES:
        raise ValueError(f"severity is one of {', '.join(SEVERITIES)}, not {severity!r}")
    rules = root / "server" / "autograd_lint" / "rules"
    taken = [p for p in rules.glob("ag*.py") if f'"{code}"' in p.read_text(encoding="utf-8")]
    targets = paths(root, code, name)
    existing = [p for p in [*targets.values(), *taken] if p.exists()]
    if existing:
        raise FileExistsError(f"{code} exists already: {', '.join(map(str, existing))}")
    summary = summary or f"TODO: one sentence on what {code} finds"
    targets["module"].write_text(
        MODULE.format(
            code=code,
            name=name,
            summary=summary,
            severity=SEVERITIES[severity],
            code_text=_literal(code),
            name_text=_literal(name),
            summary_text=_literal(summary),
            title_text=_literal(title),
            what_text=_literal(what or title),
            confirmable="\n    confirmable=True," if confirmable else "",
        ),
        encoding="utf-8",
    )
    targets["buggy"].write_text(
        SAMPLE.format(
            what=f"with the {code} bug",
            which="Bug",
            state="wrong",
            mark=f"End the line to report with `# expect: {code}`.",
        ),
        encoding="utf-8",
    )
    targets["fixed"].write_text(
        SAMPLE.format(
            what=f"the {code} sample with its fix applied",
            which="Fix",
            state="changed",
            mark="No mark: it must run cleanly and have no finding.",
        ),
        encoding="utf-8",
    )
    return targets


def regenerate(root: Path) -> None:
    """Run gen_rule_docs.py against `root`'s own rules (not an installed copy)."""
    subprocess.run(
        [sys.executable, str(root / "scripts" / "gen_rule_docs.py")],
        check=True,
        env={**os.environ, "PYTHONPATH": str(root / "server")},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("code", help="AGNNN")
    parser.add_argument("name", help="lowercase-with-hyphens, e.g. detach-in-closure")
    parser.add_argument("--title", required=True, help="a few words for menus and settings")
    parser.add_argument("--severity", default="warning", choices=list(SEVERITIES))
    parser.add_argument("--summary", help="one sentence for `autograd-lint rules` and SARIF")
    parser.add_argument("--what", help="the README table's cell (default: the title)")
    parser.add_argument(
        "--confirmable",
        action="store_true",
        help="its findings raise when run, so runtime confirmation can check them",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        written = scaffold(
            args.root,
            args.code,
            args.name,
            args.title,
            args.severity,
            args.summary,
            args.what,
            args.confirmable,
        )
    except (ValueError, FileExistsError) as exc:
        print(f"add_rule: {exc}", file=sys.stderr)
        return 2
    for path in written.values():
        print(f"wrote {path.relative_to(args.root)}")
    if shutil.which("ruff"):  # the dev extras have it: the new files start ruff-formatted
        subprocess.run(["ruff", "format", "-q", *map(str, written.values())], check=False)
    regenerate(args.root)
    print(
        f"next: fill in the TODOs, write the check (see this script's docstring), then run "
        f"python scripts/gen_rule_docs.py and python3 -m pytest tests/test_rule_examples.py "
        f"tests/test_samples_static.py tests/test_rule_docs.py -k {args.code}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

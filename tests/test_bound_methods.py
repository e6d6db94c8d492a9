"""A library method read without a call and called later (analysis/bound_methods.py), the
guard on it, and dicts read back by literal key (analysis/keyed_dicts.py). The corpus pair
hook_wired_to_library_backward*.py shows the whole chain with torch's verdict; these pin
each piece on programs torch runs, with accelerate's real Accelerator on the CPU.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from autograd_lint.analysis import Role, analyze

FREED = "Trying to backward through the graph a second time"

HOOKED = """
import sys

import torch
from accelerate import Accelerator

torch.manual_seed(0)
accelerator = Accelerator(cpu=True)
layer = torch.nn.Linear(3, 1)
{hook}
for _ in range(2):
    loss = layer(torch.randn(4, 3)).pow(2).mean()
    if hook is not None:
        hook(loss)
    accelerator.backward(loss)
"""
SURE = "hook = accelerator.backward"
# Set on one path only (the program's argument decides): the guard is not decided.
MAYBE = "hook = None\nif len(sys.argv) > 1:\n    hook = accelerator.backward"
# A method no row describes: calling it is unknown, as before.
NO_ROW = "hook = accelerator.print"

DICTS = """
import torch

torch.manual_seed(0)
trunk, head_a, head_b = torch.nn.Linear(3, 4), torch.nn.Linear(4, 1), torch.nn.Linear(3, 1)
x = torch.randn(5, 3)
features = trunk(x)
losses = {{"a": head_a(features).mean(), "b": {b}}}
losses["a"].backward()
losses["b"].backward()
"""
SHARED = "head_a(features).pow(2).mean()"
DISJOINT = "head_b(x).mean()"


@pytest.fixture
def torch_raises(tmp_path, torch_python):
    """torch_raises(text, *argv): whether torch raises the freed-graph error (any other
    failure fails the test), run by the suite's warm interpreter (torch already imported)."""

    def raised(text: str, *argv: str) -> bool:
        path = tmp_path / "program.py"
        path.write_text(text, encoding="utf-8")
        done = subprocess.run(
            [torch_python, str(path), *argv], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0 or FREED in done.stderr, done.stderr
        return done.returncode != 0

    return raised


BACKWARD = "    accelerator.backward(loss)"


def line_of(text: str, wanted: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line == wanted)


def findings(text: str):
    return [f for f in analyze(text, "program.py") if f.code in ("AG001", "AG002", "AG007")]


def test_a_hook_set_to_accelerator_backward_back_propagates(torch_raises):
    text = HOOKED.format(hook=SURE)
    assert torch_raises(text)
    found = findings(text)
    assert [(f.code, f.span.start.line) for f in found] == [("AG002", line_of(text, BACKWARD))]
    freed = found[0].steps(Role.FREED)[0]
    assert "`accelerate.Accelerator.backward`" in freed.message
    inside = [s for s in found[0].steps(Role.NOTE) if s.path]
    assert inside and inside[0].path.endswith("accelerate/accelerator.py")
    source = Path(inside[0].path).read_text(encoding="utf-8").splitlines()
    line = source[inside[0].span.start.line - 1]
    assert ".backward(" in line


def test_a_hook_set_on_one_path_leaves_the_guard_open(torch_raises):
    text = HOOKED.format(hook=MAYBE)
    assert not torch_raises(text)  # unset: runs
    assert torch_raises(text, "set")  # set: raises; which path runs, nothing here says
    assert findings(text) == []


def test_a_method_without_a_row_stays_unknown(torch_raises):
    text = HOOKED.format(hook=NO_ROW)
    assert not torch_raises(text)
    assert findings(text) == []


@pytest.mark.parametrize("entry, raises", [(SHARED, True), (DISJOINT, False)])
def test_a_dict_entry_read_by_its_key_is_that_entry(entry, raises, torch_raises):
    text = DICTS.format(b=entry)
    assert torch_raises(text) is raises
    expected = [("AG002", line_of(text, 'losses["b"].backward()'))] if raises else []
    assert [(f.code, f.span.start.line) for f in findings(text)] == expected


def test_two_dicts_joined_are_read_as_either(torch_raises):
    # Which literal `losses` is depends on the path: its "b" may be the shared one.
    text = (
        DICTS.format(b=DISJOINT)
        .replace(
            'losses["a"].backward()',
            "if len(sys.argv) > 1:\n"
            '    losses = {"a": losses["a"], "b": head_a(features).pow(2).mean()}\n'
            'losses["a"].backward()',
        )
        .replace("import torch\n", "import sys\n\nimport torch\n", 1)
    )
    assert not torch_raises(text)
    assert torch_raises(text, "shared")
    assert findings(text) == []  # `b` is freed on one path only: no error either way

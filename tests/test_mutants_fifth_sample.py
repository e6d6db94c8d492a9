"""Tests for the mutants issue 19's fifth session answered (docs/mutation.md): the roles
survivor the fourth left open, and the survivors of the fifth sample (the modules added since
the fourth), drawn at ddca906.

Each test names the mutant it kills (`module.function` and mutmut's number at its commit)
and says what the mutant broke. Every program is run with torch (the warm interpreter of
tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze
from test_mutants import codes_and_lines
from torch_labels import FREED_ERROR, assert_behaves_as_labelled

# roles.ScopeEvidence._use 58 (`"STEP(CLOSURE)"`, mutmut's number at 8131204): `x.step(f)`
# alone no longer made `x` an optimizer. A snippet's `updater`, known only by that call, then
# stayed an unknown object, whose `step(closure)` the interpreter does not run: the closure's
# backward through the state it carries from the last step went unseen (AG001 lost). An
# optimizer's `step(closure)` runs the closure once per call, as torch's SGD does.
CLOSURE_CARRIES_STATE = """import torch

hidden = torch.zeros(1, 4)
for x in torch.randn(3, 1, 4):

    def closure():
        global hidden
        hidden = cell(x, hidden)
        loss = hidden.pow(2).sum()
        loss.backward()
        return loss

    updater.step(closure)
"""
# What the snippet's free names are when it runs: a recurrent cell and an SGD over it.
SNIPPET_GLOBALS = """import torch

torch.manual_seed(0)
cell = torch.nn.RNNCell(4, 4)
updater = torch.optim.SGD(cell.parameters(), lr=0.1)
"""


def test_an_object_known_only_by_step_of_a_closure_runs_the_closure():
    assert codes_and_lines(analyze(CLOSURE_CARRIES_STATE, "f.py")) == [("AG001", 10)]


def shifted(label_line: int, prelude: str) -> int:
    return label_line + prelude.count("\n")


UNDER_TORCH = {
    "closure carries state": (
        SNIPPET_GLOBALS + CLOSURE_CARRIES_STATE,
        (FREED_ERROR, shifted(10, SNIPPET_GLOBALS)),
    ),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)

"""Tests for the survivors of issue 19's third mutation sample left unexamined (docs/mutation.md).

Each test names the mutant it kills (`module.function` and mutmut's number at commit 8131204,
where the sample was drawn) and says what the mutant broke. The programs about a verdict are
run with torch (the warm interpreter of tests/conftest.py) and their outcome is the label.
"""

from __future__ import annotations

import random

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.analysis.blocks import CUT_WINDOW
from test_head_of import check_cut, program
from test_mutants import codes_and_lines
from torch_labels import FREED_ERROR, assert_behaves_as_labelled

# checks.constructors.constructor_kind 18: `torch.optim.<Class>` matched with three dots, not
# two, so `torch.optim.lr_scheduler.StepLR` (however imported) was an optimizer's constructor,
# and AG005 said the scheduler's `step()` steps gradients `zero_grad()` never cleared.
SCHEDULED_TRAINING = """import torch
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
schedule = StepLR(optimizer, step_size=2)
for epoch in range(3):
    optimizer.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    optimizer.step()
    schedule.step()
"""
# torch: the scheduler is no optimizer; it holds none of the parameters' groups.
SCHEDULER_IS_NO_OPTIMIZER = """
assert not isinstance(schedule, torch.optim.Optimizer)
assert not hasattr(schedule, "param_groups") and schedule.optimizer is optimizer
"""


def test_a_scheduler_imported_from_lr_scheduler_is_no_optimizer():
    assert analyze(SCHEDULED_TRAINING, "f.py") == []


# blocks.head_of 36: `split` instead of `rsplit` for the window of lines searched back from
# the bound. Only a bound above the window's size (CUT_WINDOW lines) tells them apart: the
# window then held the file's first lines, and the cut missed the last statement start.
def test_a_bound_longer_than_the_search_window_cuts_at_the_last_statement_start():
    max_lines = CUT_WINDOW + 300
    source = "\n".join(program(random.Random(5), max_lines + 400)) + "\n"
    check_cut(source, "\n", max_lines)


# library_calls.LibraryMixin.modelled_result 40 (the `result-module` effect misspelt) and 45
# (its value made without the MODULE kind): `get_peft_model(...)` no longer returned a
# module, so its forward built no graph, and a graph built once before the loop and
# back-propagated in every iteration went unreported.
PEFT_FEATURES_BEFORE_THE_LOOP = """import torch
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)


class Body(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.layer(x)


adapted = get_peft_model(Body(), LoraConfig(target_modules=["layer"], r=2))
features = adapted(torch.randn(3, 4))
for step in range(3):
    loss = features.pow(2).mean()
    loss.backward()
"""


def test_a_peft_wrapped_model_is_a_module():
    assert codes_and_lines(analyze(PEFT_FEATURES_BEFORE_THE_LOOP, "f.py")) == [("AG001", 20)]


# roles.ScopeEvidence.makes_objects 20 (`"STEP"`): a callable whose results include an object
# that is cleared and stepped (an optimizer) makes objects, so back-propagating another of
# its results does not make the callable a module. With the mutant, `make` became one, its
# `make("zeros")` before the loop a graph, and the loop's backward a false AG001.
FACTORY_OF_OPTIMIZER_AND_LOSS = """import torch


def train(make, batches):
    updater = make("sgd")
    start = make("zeros")
    for batch in batches:
        updater.zero_grad()
        loss = make("loss", start, batch)
        loss.backward()
        updater.step()
"""
# The snippet driven with a real factory: it runs, and the steps move the weight.
DRIVE_THE_FACTORY = """
torch.manual_seed(0)
weight = torch.nn.Parameter(torch.randn(3))


def make(kind, *args):
    if kind == "sgd":
        return torch.optim.SGD([weight], lr=0.1)
    if kind == "zeros":
        return torch.zeros(3)
    start, batch = args
    return ((start + batch) * weight).pow(2).sum()


before = weight.detach().clone()
train(make, [torch.randn(3) for _ in range(3)])
assert not torch.equal(before, weight.detach()), "the steps did not move the weight"
"""


def test_a_factory_of_an_optimizer_and_a_loss_is_no_module():
    assert analyze(FACTORY_OF_OPTIMIZER_AND_LOSS, "f.py") == []


# What torch does with each program above: the error and the raising line, or None (clean).
UNDER_TORCH = {
    "scheduled training": (SCHEDULED_TRAINING + SCHEDULER_IS_NO_OPTIMIZER, None),
    "peft features before the loop": (PEFT_FEATURES_BEFORE_THE_LOOP, (FREED_ERROR, 20)),
    "factory driven": (FACTORY_OF_OPTIMIZER_AND_LOSS + DRIVE_THE_FACTORY, None),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)

"""Tests for three survivors of the eighth mutation sample (docs/mutation.md).

library_distributions._parse 28 (the library file's block starting at line 2): the
evidence a distribution's finding carries inside torch's source is one line off. The test
reads the installed file at each step's line and checks it holds what the step's message
names. lightning_legacy.optimizer_count 12 (`value.elts[1]`: the schedulers' list counted
for `[optimizers], [schedulers]`): it showed the rebuilt legacy loop indexed the returned
pair itself (`optimizers[1]` was the schedulers' list), so a crash in the second
optimizer's hook was missed; the loop now takes the pair's first list, and the mutant,
counting one optimizer, misses it again. library_layers.bound_inputs 1 (`and` for `or`)
has no test: its one caller passes `self.call_site`, set just before (calls.call_module),
and every other module call's values are eval_arguments' one per written argument, so
only an nn.Sequential's parts (one value under the Sequential's call) can differ, and
torch raises TypeError at a Sequential called with other than one argument. Each program
is run with torch (the warm interpreter of tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import linecache
import re

from autograd_lint.analysis import analyze
from test_lightning_legacy import CRASH, LEGACY_FIT
from torch_labels import FREED_ERROR, IN_PLACE_ERROR, assert_behaves_as_labelled

# library_distributions._parse 28: a Categorical built once from a graph, before the
# loop. Its finding points into torch/distributions/categorical.py twice: at the
# `self.probs = ...` of `__init__` and at the `def logits` of the lazy_property.
CATEGORICAL_BEFORE_THE_LOOP = """import torch
from torch.distributions import Categorical

weights = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
choice = Categorical(probs=weights.softmax(0))
optimizer = torch.optim.SGD([weights], lr=0.1)
for step in range(2):
    optimizer.zero_grad()
    loss = -choice.log_prob(torch.tensor(2))
    loss.backward()
    optimizer.step()
"""


def test_the_steps_inside_torch_point_at_the_lines_their_messages_name(torch_python, tmp_path):
    assert_behaves_as_labelled(
        torch_python, CATEGORICAL_BEFORE_THE_LOOP, (FREED_ERROR, 10), tmp_path
    )
    (finding,) = [f for f in analyze(CATEGORICAL_BEFORE_THE_LOOP, "f.py") if f.code == "AG001"]
    inside = [step for step in finding.evidence if step.path]
    assert len(inside) == 2
    for step in inside:
        assert step.path.replace("\\", "/").endswith("torch/distributions/categorical.py")
        line = linecache.getline(step.path, step.span.start.line).strip()
        lazy = re.search(r"`Categorical\.(\w+)` is a lazy_property", step.message)
        if lazy is not None:  # the method that computes it
            assert line.startswith(f"def {lazy.group(1)}(")
        else:  # the assignment of `__init__` that keeps it
            kept = re.search(r"`Categorical\.__init__` computes `self\.(\w+)`", step.message)
            assert kept is not None, step.message
            assert line.startswith(f"self.{kept.group(1)} =")


# lightning_legacy.optimizer_count 12: the corpus pair of tests/test_lightning_legacy.py
# with a scheduler, `return [judge_opt, maker_opt], [scheduler]`, and the penalty kept by
# the judge's step back-propagated in the maker's hook (optimizer_idx 1), after the
# judge's optimizer stepped the weights its graph saved. LEGACY_FIT is that test's
# reproduction of pytorch-lightning 0.8.5's loop (not installable beside torch 2.13), with
# its init_optimizers split of the pair and the schedulers stepped after the epoch.
def _penalty_in_the_second_hook() -> str:
    """The corpus crash's class with a scheduler returned beside its two optimizers, and
    its penalty back-propagated in the maker's hook (optimizer_idx 1) instead."""
    text = CRASH.read_text(encoding="utf-8")
    text = "".join(line for line in text.splitlines(True) if not line.startswith("#"))
    for old, new in (
        ("return [judge_opt, maker_opt]\n",
         "return [judge_opt, maker_opt], [torch.optim.lr_scheduler.StepLR(judge_opt, 1)]\n"),
        ("  # expect: AG007", ""),
        ("zero_grad()\n        if optimizer_idx == 0:\n", "zero_grad()\n        if optimizer_idx == 1:\n"),
        ("(10.0 * self.penalty).backward()\n            optimizer.step()\n"
         "            optimizer.zero_grad()\n", "(10.0 * self.penalty).backward()\n"),
    ):  # fmt: skip
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


PENALTY_IN_THE_SECOND_HOOK = _penalty_in_the_second_hook()
PENALTY_LINE = next(
    number
    for number, line in enumerate(PENALTY_IN_THE_SECOND_HOOK.splitlines(), 1)
    if "(10.0 * self.penalty).backward()" in line
)


def test_the_second_optimizer_of_an_optimizers_and_schedulers_pair_is_run(torch_python, tmp_path):
    program = PENALTY_IN_THE_SECOND_HOOK + LEGACY_FIT
    assert_behaves_as_labelled(torch_python, program, (IN_PLACE_ERROR, PENALTY_LINE), tmp_path)
    (finding,) = [f for f in analyze(PENALTY_IN_THE_SECOND_HOOK, "f.py") if f.code == "AG007"]
    fails = [s.span.start.line for s in finding.evidence if s.role.name == "FAILS"]
    assert fails == [PENALTY_LINE]

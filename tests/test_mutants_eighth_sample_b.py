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
PENALTY_IN_THE_SECOND_HOOK = """import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn


class PenalizedPair(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.maker = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 6))
        self.judge = nn.Sequential(nn.Linear(6, 16), nn.Softplus(), nn.Linear(16, 1))
        self.penalty = None

    def configure_optimizers(self):
        judge_opt = torch.optim.Adam(self.judge.parameters(), lr=1e-3)
        maker_opt = torch.optim.Adam(self.maker.parameters(), lr=1e-3)
        return [judge_opt, maker_opt], [torch.optim.lr_scheduler.StepLR(judge_opt, 1)]

    def training_step(self, batch, batch_idx, optimizer_idx):
        noise = torch.randn(batch.shape[0], 4)
        if optimizer_idx == 0:
            fake = self.maker(noise).detach()
            loss = F.softplus(self.judge(fake)).mean() + F.softplus(-self.judge(batch)).mean()
            batch.requires_grad = True
            (grad,) = torch.autograd.grad(self.judge(batch).sum(), batch, create_graph=True)
            self.penalty = grad.pow(2).sum(1).mean()
            return {"loss": loss}
        return {"loss": F.softplus(-self.judge(self.maker(noise))).mean()}

    def optimizer_step(
        self,
        epoch,
        batch_idx,
        optimizer,
        optimizer_idx,
        second_order_closure=None,
        on_tpu=False,
        using_native_amp=False,
        using_lbfgs=False,
    ):
        optimizer.step()
        optimizer.zero_grad()
        if optimizer_idx == 1:
            (10.0 * self.penalty).backward()
"""
PENALTY_LINE = 44
LEGACY_FIT = """

def legacy_fit(module, batches):
    optimizers, schedulers = module.configure_optimizers()
    for batch_idx, batch in enumerate(batches):
        for opt_idx, optimizer in enumerate(optimizers):
            if len(optimizers) > 1:
                for param in module.parameters():
                    param.requires_grad = False
                for group in optimizer.param_groups:
                    for param in group["params"]:
                        param.requires_grad = True
            output = module.training_step(batch.clone(), batch_idx, opt_idx)
            output["loss"].backward()
            module.optimizer_step(0, batch_idx, optimizer, opt_idx, lambda: None,
                                  using_native_amp=False)
            optimizer.zero_grad()
    for scheduler in schedulers:
        scheduler.step()


torch.manual_seed(0)
legacy_fit(PenalizedPair(), [torch.randn(8, 6) for _ in range(3)])
"""


def test_the_second_optimizer_of_an_optimizers_and_schedulers_pair_is_run(torch_python, tmp_path):
    assert (
        "(10.0 * self.penalty).backward()"
        in PENALTY_IN_THE_SECOND_HOOK.splitlines()[PENALTY_LINE - 1]
    )
    program = PENALTY_IN_THE_SECOND_HOOK + LEGACY_FIT
    assert_behaves_as_labelled(torch_python, program, (IN_PLACE_ERROR, PENALTY_LINE), tmp_path)
    (finding,) = [f for f in analyze(PENALTY_IN_THE_SECOND_HOOK, "f.py") if f.code == "AG007"]
    fails = [s.span.start.line for s in finding.evidence if s.role.name == "FAILS"]
    assert fails == [PENALTY_LINE]

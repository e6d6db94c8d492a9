"""Tests written for mutants of the analysis that survived the mutation run (docs/mutation.md).

Each test names the mutant it kills (`module.function` and mutmut's number at the time) and
says what the mutant broke. Where the test is about a verdict, the program is run with torch
(the warm interpreter of tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.analysis.blocks import build_blocks, split_lines
from autograd_lint.analysis.engine import AnalysisCache
from torch_labels import FREED_ERROR, IN_PLACE_ERROR, assert_behaves_as_labelled


def codes_and_lines(findings) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in findings]


def comparable(findings) -> list[tuple]:
    return [
        (f.code, f.span, f.message, [(s.span, s.message) for s in f.evidence]) for f in findings
    ]


# blocks.rebuild_blocks 20: `first, offset = 0, 1` where the broken piece starts mid-statement.
# A block can start where no statement may (the line above ends in a backslash, even inside a
# comment) when the editor's cache kept it from before an edit; once the whole file parses
# again, the re-cut must parse it from line 1, and the mutant dropped the first line.
CARRIED_AFTER_A_LONG_STRING = """import torch; w = torch.ones(2, requires_grad=True)
scale = 3
NOTES = \"\"\"
{notes}"""
CARRIED_LOOP = """\"\"\"
hidden = torch.zeros(2)
for step in range(3):
    hidden = hidden * w
    hidden.sum().backward()
"""


# More column-0 lines in the open string than the re-cut merges (MAX_MERGE): it stays broken
# from `NOTES` on until the closing quotes are typed.
UNCLOSED = CARRIED_AFTER_A_LONG_STRING.format(notes="".join(f"note {i}\n" for i in range(12)))
COMMENTED = UNCLOSED.replace("scale = 3\n", "scale = 3  # a comment ending in a backslash \\\n")
CLOSED = COMMENTED + CARRIED_LOOP


def test_a_recut_from_a_block_kept_below_a_backslash_comment_equals_a_fresh_cut():
    cache = AnalysisCache()
    for text in (UNCLOSED, COMMENTED):
        analyze(text, "f.py", cache=cache)
    cached = analyze(CLOSED, "f.py", cache=cache)
    fresh_blocks = build_blocks(CLOSED, split_lines(CLOSED))
    assert [(b.start, b.error) for b in cache.blocks] == [(b.start, b.error) for b in fresh_blocks]
    assert [b.start for b in fresh_blocks] == [1, 2, 3, 17, 18]
    assert comparable(cached) == comparable(analyze(CLOSED, "f.py"))
    assert codes_and_lines(cached) == [("AG001", 20)]


# blocks.Block._defines 8: `getattr(statement, None)` raised for every assignment in a block
# that also holds a definition. Such a block is cut only from a file that does not parse: a
# piece runs from one column-0 line to the next that may start a statement, and a line after
# one ending in a backslash (inside a comment too) may not.
HELPER_AND_ASSIGNMENT_IN_ONE_PIECE = """import torch


def scaled(hidden, w):
    return hidden * w  # a comment ending in a backslash \\
w = torch.ones(2, requires_grad=True)


hidden = torch.zeros(2)
for _ in range(3):
    hidden = scaled(hidden, w)
    hidden.sum().backward()
"""


def test_a_piece_holding_a_definition_and_an_assignment_is_analysed():
    # The program torch runs, and a broken definition after it.
    broken = HELPER_AND_ASSIGNMENT_IN_ONE_PIECE + "\n\ndef unfinished(:\n    pass\n"
    blocks = build_blocks(broken, split_lines(broken))
    assert [len(b.statements) for b in blocks if b.start == 4] == [2]  # the def and `w = ...`
    assert codes_and_lines(analyze(broken, "f.py")) == [("AG001", 12), ("AG000", 15)]


# program.Program.relevant_functions 11: four rounds of "callers of relevant functions"
# instead of three. The bound keeps the number of roots small; a function four calls above
# the backward (defined before its callees, so each round adds one level) is not analysed
# as a root of its own. Pinned, so that moving the bound is a decision: torch raises in both
# programs, and the deeper one is a known miss.
def call_chain(levels: int) -> str:
    source = "import torch\n\nw = torch.ones(2, requires_grad=True)\n"
    source += "\n\ndef train():\n    h = torch.zeros(2)\n    for _ in range(3):\n"
    source += f"        h = level{levels}(h)\n"
    for level in range(levels, 0, -1):
        source += f"\n\ndef level{level}(h):\n    return level{level - 1}(h)\n"
    return source + "\n\ndef level0(h):\n    h = h * w\n    h.sum().backward()\n    return h\n"


def test_callers_three_levels_above_a_backward_are_roots_and_four_are_not():
    assert codes_and_lines(analyze(call_chain(2), "f.py")) == [("AG001", 22)]
    assert codes_and_lines(analyze(call_chain(3), "f.py")) == []


# stepped.changed_weights 17: `min(steps, key=None)` compared Stepped records, which have no
# order: the analysis crashed (and AG007 was lost) when a node saved weights that two
# optimizers both stepped (the model's own, and its head's at another rate).
TWO_OPTIMIZERS_STEP_THE_SAVED_HEAD = """import torch

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Linear(4, 8)
        self.head = torch.nn.Linear(8, 1)

    def forward(self, x):
        return self.head(torch.tanh(self.encoder(x)))


model = Net()
head_optimizer = torch.optim.SGD(model.head.parameters(), lr=0.5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    head_optimizer.zero_grad()
    first = model(torch.randn(3, 4))
    second = model(torch.randn(3, 4))
    first.sum().backward()
    head_optimizer.step()
    optimizer.step()
    second.sum().backward()
"""


def test_weights_stepped_by_two_optimizers_before_the_backward():
    (finding,) = analyze(TWO_OPTIMIZERS_STEP_THE_SAVED_HEAD, "f.py")
    # At the first step that changes the saved weights; the backward that raises is line 27.
    assert (finding.code, finding.span.start.line) == ("AG007", 25)
    assert "`head_optimizer.step()` updates those weights in place" in [
        s.message for s in finding.evidence
    ]


# checks._PerBlock.scopes 41: the module scope's kind misspelt, so its cache key no longer
# held where each of its blocks starts. A definition inserted between two module-level
# blocks leaves the module's text and first block as they were; the AG005 below it kept its
# old line.
NEVER_CLEARED = """import torch

model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
grads = []
for step in range(3):
    loss = model(torch.ones(1, 2)).sum()
    loss.backward()
    grads.append(model.weight.grad.clone())
    optimizer.step()
"""


INSERTED_ABOVE = NEVER_CLEARED.replace(
    "\nfor step", "\ndef batch():\n    return torch.ones(1, 2)\n\n\nfor step"
)


def test_module_findings_move_with_a_block_when_a_definition_is_inserted_above_it():
    inserted = INSERTED_ABOVE
    cache = AnalysisCache()
    assert codes_and_lines(analyze(NEVER_CLEARED, "f.py", cache=cache)) == [("AG005", 10)]
    cached = analyze(inserted, "f.py", cache=cache)
    assert comparable(cached) == comparable(analyze(inserted, "f.py"))
    assert codes_and_lines(cached) == [("AG005", 14)]


# checks.scopes.function_scopes 21: definitions nested in module-level statements (a `def`
# under `if __name__ == "__main__":`) were collected with no text filter, which crashed the
# AG005-AG007 checks for the whole file.
TRAIN_UNDER_MAIN_GUARD = """import torch

if __name__ == "__main__":

    def train(steps):
        torch.manual_seed(0)
        model = torch.nn.Linear(2, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        grads = []
        for _ in range(steps):
            model(torch.ones(1, 2)).sum().backward()
            grads.append(model.weight.grad.clone())
            optimizer.step()
        return grads

    grads = train(3)
    assert torch.equal(grads[2], 3 * grads[0]), "the gradients did not pile up"
"""


def test_a_function_defined_under_the_main_guard_is_checked():
    assert codes_and_lines(analyze(TRAIN_UNDER_MAIN_GUARD, "f.py")) == [("AG005", 13)]


# checks.zero_grad.EventCollector.statement 15: every loop body in one straight-line run
# (group None). A backward in an earlier loop then looked like the last backward before
# `zero_grad()` and the step, and AG005 called a step whose gradients an `if` recomputes
# after the clear "cleared before step". The program checks that every step moves the weights.
PROBE_THEN_STEP = """import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(8, 4)
for epoch in range(3):
    probe_norms = []
    for row in data:  # per-sample gradients, summed into .grad: a sensitivity probe
        model(row).sum().backward()
        probe_norms.append(model.weight.grad.norm().item())
    optimizer.zero_grad()  # the probe's gradients are not the update's
    loss = model(data).pow(2).mean()
    if epoch == 0:
        loss.backward()
    else:
        (0.5 * loss).backward()
    before = model.weight.detach().clone()
    optimizer.step()
    assert not torch.equal(before, model.weight), "the step did not move the weights"
"""


def test_a_clear_between_an_earlier_loops_backward_and_the_step_is_not_too_late():
    assert analyze(PROBE_THEN_STEP, "f.py") == []


# The sample of issue 19's third session (recut, roles, lifetimes, stepped, checks, the
# library rows): the survivors that change a verdict.


# library_calls.call_closure_repeatedly 4: the closure's second pass numbered 3. What a
# closure called again reaches from its previous call is judged on pass 2: a state the
# closure carries from call to call behind `retain_graph=True` was no longer AG004.
CLOSURE_CARRIES_STATE = """import torch

torch.manual_seed(0)
weights = torch.nn.Parameter(torch.randn(3))
optimizer = torch.optim.LBFGS([weights], max_iter=4)
hidden = torch.zeros(3)


def closure():
    global hidden
    optimizer.zero_grad()
    hidden = torch.tanh(hidden + weights)
    loss = hidden.pow(2).sum()
    loss.backward(retain_graph=True)
    return loss


optimizer.step(closure)
"""


def test_retain_graph_over_state_an_lbfgs_closure_carries_between_calls():
    (finding,) = analyze(CLOSURE_CARRIES_STATE, "f.py")
    assert (finding.code, finding.span.start.line) == ("AG004", 14)
    assert "the next iteration reaches" in finding.message


# stepped.report 79: every step-before-backward finding stored under one key, so a root
# kept only the first: two loops with the bug, one AG007.
ENCODER_LOOP = """import torch

torch.manual_seed(0)
encoder = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
decoder = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
encoder_optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
decoder_optimizer = torch.optim.SGD(decoder.parameters(), lr=0.1)
for step in range(3):
    encoder_optimizer.zero_grad()
    first = encoder(torch.randn(3, 4))
    second = encoder(torch.randn(3, 4))
    first.sum().backward()
    encoder_optimizer.step()
    second.sum().backward()
"""
DECODER_LOOP = """for step in range(3):
    decoder_optimizer.zero_grad()
    first = decoder(torch.randn(3, 4))
    second = decoder(torch.randn(3, 4))
    first.sum().backward()
    decoder_optimizer.step()
    second.sum().backward()
"""
TWO_LOOPS_STEP_BEFORE_BACKWARD = ENCODER_LOOP + DECODER_LOOP
# The second loop alone (torch stops the program at the first one's error).
DECODER_LOOP_ALONE = ENCODER_LOOP.split("for step")[0] + DECODER_LOOP


def test_two_loops_that_step_before_the_backward_are_two_findings():
    found = analyze(TWO_LOOPS_STEP_BEFORE_BACKWARD, "f.py")
    assert codes_and_lines(found) == [("AG007", 13), ("AG007", 20)]
    assert codes_and_lines(analyze(DECODER_LOOP_ALONE, "f.py")) == [("AG007", 13)]


# checks.data_attr.DataChecker.is_tensor 7: `mT` misspelt, so `p.mT.data` was not a tensor's
# `.data`. torch: it is the live parameter's storage with no history (every snapshot below
# changes with the next step).
TRANSPOSED_DATA_READ = """import torch

torch.manual_seed(0)
codebook = torch.nn.Parameter(torch.randn(4, 3))
optimizer = torch.optim.SGD([codebook], lr=0.1)
snapshots = []
for step in range(3):
    optimizer.zero_grad()
    loss = (torch.randn(2, 4) @ codebook).pow(2).mean()
    loss.backward()
    optimizer.step()
    snapshots.append(codebook.mT.data)
"""
SNAPSHOTS_ALIAS = """
assert not snapshots[0].requires_grad
assert snapshots[0].data_ptr() == codebook.data_ptr()
assert torch.equal(snapshots[0], codebook.mT), "the first snapshot did not follow the steps"
"""


def test_data_read_through_a_matrix_transpose_attribute():
    (finding,) = analyze(TRANSPOSED_DATA_READ, "f.py")
    assert (finding.code, finding.span.start.line) == ("AG006", 12)
    assert "`codebook.mT.data`" in finding.message


# name_fallback.fallback_role 4: the whole dotted path read as the name, so `self.opt`
# (where `^opt` is anchored) was no optimizer's spelling. A snippet whose optimizer is
# built elsewhere is exactly where AG005 has only the name to go on.
SNIPPET_STEPS_SELF_OPT = """class Trainer:
    def fit(self, batches):
        for inputs, targets in batches:
            loss = self.loss_fn(self.model(inputs), targets)
            loss.backward()
            self.opt.step()
"""
# The snippet driven with a real model: with a zero learning rate every batch has the same
# gradient, and three batches leave three times one batch's in `.grad`.
DRIVE_THE_SNIPPET = """
import torch

trainer = Trainer()
trainer.model = torch.nn.Linear(2, 1)
trainer.loss_fn = torch.nn.functional.mse_loss
trainer.opt = torch.optim.SGD(trainer.model.parameters(), lr=0.0)
batch = (torch.ones(4, 2), torch.zeros(4, 1))
trainer.fit([batch])
once = trainer.model.weight.grad.clone()
trainer.model.weight.grad = None
trainer.fit([batch] * 3)
assert torch.allclose(trainer.model.weight.grad, 3 * once), "the gradients did not pile up"
"""


def test_a_snippets_self_opt_is_an_optimizer_by_its_name():
    assert codes_and_lines(analyze(SNIPPET_STEPS_SELF_OPT, "f.py")) == [("AG005", 6)]


# name_fallback.fallback_role 9, 10, 12: the `sched` exception misspelt, so a learning-rate
# scheduler named `opt_scheduler` was an optimizer's spelling too, and its `step()` a
# second "never cleared" AG005. Only the optimizer's step is one.
SNIPPET_WITH_A_SCHEDULER = """class Trainer:
    def fit(self, batches):
        for inputs, targets in batches:
            loss = self.loss_fn(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()
            self.opt_scheduler.step()
"""
DRIVE_WITH_A_SCHEDULER = DRIVE_THE_SNIPPET.replace("trainer.opt =", "trainer.optimizer =").replace(
    "trainer.model.parameters(), lr=0.0)",
    "trainer.model.parameters(), lr=0.0)\n"
    "trainer.opt_scheduler = torch.optim.lr_scheduler.StepLR(trainer.optimizer, 1)",
)


def test_a_snippets_scheduler_is_no_optimizer_by_its_name():
    assert codes_and_lines(analyze(SNIPPET_WITH_A_SCHEDULER, "f.py")) == [("AG005", 6)]


# What torch does with each program above: (source, the error it raises and the line of the
# raising statement, or None for a clean run). The AG005 programs assert what AG005 says or
# denies (gradients piling up; every step moving the weights) themselves.
GRADS_PILE_UP = "\nassert torch.equal(grads[2], 3 * grads[0]), grads\n"
UNDER_TORCH = {
    "recut": (CLOSED, (FREED_ERROR, 20)),
    "definition and assignment": (HELPER_AND_ASSIGNMENT_IN_ONE_PIECE, (FREED_ERROR, 12)),
    "three levels": (call_chain(2) + "\ntrain()\n", (FREED_ERROR, 22)),
    "four levels": (call_chain(3) + "\ntrain()\n", (FREED_ERROR, 26)),
    "two optimizers": (TWO_OPTIMIZERS_STEP_THE_SAVED_HEAD, (IN_PLACE_ERROR, 27)),
    "never cleared": (INSERTED_ABOVE + GRADS_PILE_UP, None),
    "main guard": (TRAIN_UNDER_MAIN_GUARD, None),
    "probe then step": (PROBE_THEN_STEP, None),
    "closure carries state": (CLOSURE_CARRIES_STATE, None),
    # Without retain_graph=True the closure's second call reaches the freed graph.
    "closure carries state, no retain": (
        CLOSURE_CARRIES_STATE.replace("backward(retain_graph=True)", "backward()"),
        (FREED_ERROR, 14),
    ),
    "two loops": (TWO_LOOPS_STEP_BEFORE_BACKWARD, (IN_PLACE_ERROR, 14)),
    "second loop alone": (DECODER_LOOP_ALONE, (IN_PLACE_ERROR, 14)),
    "transposed data read": (TRANSPOSED_DATA_READ + SNAPSHOTS_ALIAS, None),
    "snippet driven": (SNIPPET_STEPS_SELF_OPT + DRIVE_THE_SNIPPET, None),
    "snippet with a scheduler": (SNIPPET_WITH_A_SCHEDULER + DRIVE_WITH_A_SCHEDULER, None),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)

"""A method of an object we cannot see, run as the one class of the file that defines it
(analysis/sole_definers.py). The corpus pairs helper_object_backward_*.py show the
mechanism with torch's verdict; these tests pin where it stops: a name torch's objects
have, two definers, a method that issues no backward, an object of a library's class.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from autograd_lint.analysis import AnalysisCache, Role, analyze
from autograd_lint.analysis.sole_definers import sole_definer
from autograd_lint.analysis.torch_object_names import TORCH_OBJECT_NAMES

FREED = "Trying to backward through the graph a second time"

# A step whose criterion comes from a registry: nothing says what it is but its method.
PROGRAM = """
import torch
from torch import nn

torch.manual_seed(0)
KINDS = {{}}


class Paired:
    def paired_loss(self, net, batch):
        loss = net(batch).pow(2).mean()
        {helper}
        return loss
{other}

def train_step(net, criterion, opt, batch):
    opt.zero_grad()
    loss = criterion.paired_loss(net, batch)
    loss.backward()
    opt.step()


KINDS["paired"] = Paired
net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
criterion = KINDS["paired"]()
for _ in range(2):
    train_step(net, criterion, opt, torch.randn(4, 3))
"""
BACKWARD = "loss.backward()"
THROUGH_SELF = "self.release(loss)"
RELEASE = "\n    def release(self, loss):\n        loss.backward()\n"
SECOND_DEFINER = """

class Plain:
    def paired_loss(self, net, batch):
        return net(batch).pow(2).mean()
"""


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in analyze(text, "step.py") if f.code != "AG000"]


def raises(text: str, tmp_path, python: str) -> bool:
    path = tmp_path / "step.py"
    path.write_text(text, encoding="utf-8")
    run = subprocess.run([python, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 or FREED in run.stderr, run.stderr
    return run.returncode != 0


def failing_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line == "    loss.backward()")


@pytest.mark.parametrize(
    "helper, other", [(BACKWARD, ""), (THROUGH_SELF, RELEASE)], ids=["direct", "through-self"]
)
def test_the_sole_definers_backward_is_seen_by_the_caller(helper, other, tmp_path, torch_python):
    text = PROGRAM.format(helper=helper, other=other)
    assert raises(text, tmp_path, torch_python)
    assert codes(text) == [("AG002", failing_line(text))]
    finding = next(f for f in analyze(text, "step.py") if f.code == "AG002")
    calls = [s.message for s in finding.steps(Role.CALL)]
    assert any(
        "`Paired.paired_loss`: no other class here defines `paired_loss`" in m for m in calls
    )


RECEIVERS = {
    # An element of what the step is given, and the result of a registry lookup's call:
    # no place to store the object back, but the call runs the sole definer all the same.
    "element": (
        ("def train_step(net, criterion,", "def train_step(net, criteria,"),
        ("criterion.paired_loss(net, batch)", "criteria[0].paired_loss(net, batch)"),
        ("train_step(net, criterion, opt", "train_step(net, [criterion], opt"),
    ),
    "call-result": (
        ("criterion.paired_loss(net, batch)", "KINDS['paired']().paired_loss(net, batch)"),
    ),
}


@pytest.mark.parametrize("receiver", sorted(RECEIVERS))
def test_a_receiver_that_is_no_name_runs_the_sole_definer_too(receiver, tmp_path, torch_python):
    text = PROGRAM.format(helper=BACKWARD, other="")
    for old, new in RECEIVERS[receiver]:
        assert old in text
        text = text.replace(old, new, 1)
    assert raises(text, tmp_path, torch_python)
    assert codes(text) == [("AG002", failing_line(text))]


def test_two_definers_leave_the_call_unknown(tmp_path, torch_python):
    # Which class runs is decided at run time: here Paired, but nothing we read says so.
    text = PROGRAM.format(helper=BACKWARD, other=SECOND_DEFINER)
    assert raises(text, tmp_path, torch_python)
    assert codes(text) == []


def test_the_editor_cache_follows_a_second_definer_coming_and_going():
    # The caller's cached result depends on every class that defines the method it calls:
    # adding a second definer takes the finding away, removing it brings it back, as a
    # fresh analysis of each text says.
    one = PROGRAM.format(helper=BACKWARD, other="")
    two = PROGRAM.format(helper=BACKWARD, other=SECOND_DEFINER)

    def cached_codes(first: str, then: str) -> list[tuple[str, int]]:
        cache = AnalysisCache()
        analyze(first, "step.py", cache=cache)
        found = analyze(then, "step.py", cache=cache)
        return [(f.code, f.span.start.line) for f in found if f.code != "AG000"]

    assert codes(one) == [("AG002", failing_line(one))] and codes(two) == []
    assert cached_codes(one, two) == codes(two)
    assert cached_codes(two, one) == codes(one)


def test_a_method_without_backward_is_not_run(tmp_path, torch_python):
    text = PROGRAM.format(helper="pass", other="")
    assert not raises(text, tmp_path, torch_python)
    assert codes(text) == []


def test_an_object_of_a_library_class_is_the_librarys():
    # `Paired` imported from a library is not the file's `Paired`, whatever it defines.
    text = PROGRAM.format(helper=BACKWARD, other="").replace(
        'criterion = KINDS["paired"]()', "from elsewhere import Paired as Imported\n"
        "criterion = Imported()"
    )  # fmt: skip
    assert codes(text) == []


def test_torch_method_names_are_never_resolved():
    info = type("Info", (), {"methods": {"step": None}})()
    assert sole_definer({"Trainer": info}, "step") is None
    assert sole_definer({"Trainer": info}, "__call__") is None


# In a process of its own: libraries other tests import (the suite loads dozens) may add
# attributes to torch's classes, and the table is about torch's own. The warm interpreter's
# runs are forked from a process that imported torch and nothing else.
TORCH_NAMES_PROGRAM = """
import json, torch
classes = (torch.nn.Module, torch.optim.Optimizer, torch.Tensor,
           torch.optim.lr_scheduler.LRScheduler, torch.amp.GradScaler)
print(json.dumps(sorted({n for c in classes for n in dir(c) if not n.startswith("__")})))
"""


def test_the_torch_names_are_those_of_the_installed_torch(torch_python):
    done = subprocess.run(
        [torch_python, "-c", TORCH_NAMES_PROGRAM], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)) == TORCH_OBJECT_NAMES

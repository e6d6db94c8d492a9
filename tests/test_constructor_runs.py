"""A class's `__init__` runs once for all of its method roots (constructor_runs.py), and
the findings are the ones a run of `__init__` per root gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from autograd_lint.analysis import analyze, constructor_runs
from autograd_lint.analysis.interp import Interpreter
from autograd_lint.workspace import Workspace, find_root

REPO = Path(__file__).resolve().parent.parent
CORPORA = [REPO / "samples", REPO / "tests" / "corpus", REPO / "tests" / "realworld" / "cases"]

# Three method roots on one object: the constructor builds the model, its optimizer and a
# graph the last method adds to every step's loss (freed by the first step's backward).
TRAINER = """\
import torch
from torch import nn


class Trainer:
    def __init__(self, width):
        self.net = nn.Linear(width, 1)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.anchor = self.net(torch.ones(width)).sum()

    def step_once(self, x):
        self.opt.zero_grad()
        loss = self.net(x).sum()
        loss.backward()
        self.opt.step()

    def step_twice(self, x):
        loss = self.net(x).sum()
        loss.backward()
        loss.backward()

    def step_anchored(self, batches):
        for x in batches:
            loss = self.net(x).sum() + self.anchor
            loss.backward()
"""

# The constructor itself back-propagates twice: what it leaves is a finding, not plain data.
REPORTING_INIT = """\
import torch
from torch import nn


class Probe:
    def __init__(self):
        self.net = nn.Linear(3, 1)
        out = self.net(torch.ones(3)).sum()
        out.backward()
        out.backward()

    def first(self, x):
        self.net(x).sum().backward()

    def second(self, x):
        self.net(x).sum().backward()
"""


@pytest.fixture
def constructor_bodies_run(monkeypatch):
    """How many times an `__init__` body was entered as a root's constructor."""
    runs: list[str] = []
    enter_root = Interpreter.enter_root

    def counting(self, fn, *args, **kwargs):
        if fn.node.name == "__init__":
            runs.append(fn.owner.name if fn.owner is not None else "")
        return enter_root(self, fn, *args, **kwargs)

    monkeypatch.setattr(Interpreter, "enter_root", counting)
    return runs


def without_reuse(monkeypatch) -> None:
    monkeypatch.setattr(constructor_runs, "_snapshot", lambda interp, heap: None)


def signature(findings) -> list:
    return [(f.code, f.span, f.message, f.evidence, f.extra) for f in findings]


def test_the_constructor_runs_once_for_three_roots(constructor_bodies_run, monkeypatch):
    shared = analyze(TRAINER, "trainer.py")
    assert constructor_bodies_run == ["Trainer"]
    # The last root's finding rests on what the constructor stored (`self.anchor`).
    assert {(f.code, f.span.start.line) for f in shared} >= {("AG002", 20), ("AG001", 25)}
    constructor_bodies_run.clear()
    without_reuse(monkeypatch)
    alone = analyze(TRAINER, "trainer.py")
    assert constructor_bodies_run == ["Trainer"] * 3
    assert signature(shared) == signature(alone)


def test_a_constructor_that_reports_runs_for_every_root(constructor_bodies_run, monkeypatch):
    shared = analyze(REPORTING_INIT, "probe.py")
    # A root of its own (it back-propagates), then once for each method.
    assert constructor_bodies_run == ["Probe"] * 3
    assert ("AG002", 10) in {(f.code, f.span.start.line) for f in shared}
    constructor_bodies_run.clear()
    without_reuse(monkeypatch)
    assert signature(analyze(REPORTING_INIT, "probe.py")) == signature(shared)


def corpus_files() -> list[Path]:
    found = []
    for folder in CORPORA:
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8", errors="replace")
            # Only a class constructor with more than one root can be shared.
            if "__init__" in text and ("backward" in text or "autograd" in text):
                found.append(path)
    return found


def test_the_corpora_find_the_same_either_way(constructor_bodies_run, monkeypatch):
    files = corpus_files()
    assert len(files) > 50

    def analyse_all():
        out = {}
        for path in files:
            workspace = Workspace(find_root(path))  # imports resolved as the CLI does
            out[path] = signature(analyze(path.read_text(), str(path), resolver=workspace.resolve))
        return out

    shared = analyse_all()
    runs_shared = len(constructor_bodies_run)
    constructor_bodies_run.clear()
    without_reuse(monkeypatch)
    alone = analyse_all()
    # The corpora hold classes with several roots: the mechanism was exercised...
    assert runs_shared < len(constructor_bodies_run)
    # ...and changed no finding of any file.
    assert [p for p in files if shared[p] != alone[p]] == []

"""Tests for three survivors of issue 19's eighth mutation sample (docs/mutation.md):
definitions.ClassInfo.find_method 15, keyed_dicts.keyed_dict 3 and records._is_record 6.

Each program is one the code judges as torch does and the mutant does not: a class cycle
the mutant's lookup never leaves, a dict keyed by a variable the mutant's key check
crashes on, and a registry-decorated class the mutant takes for a dataclass. Every program
is run with torch (the warm interpreter of tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze
from test_mutants import codes_and_lines
from torch_labels import FREED_ERROR, assert_behaves_as_labelled

# definitions.ClassInfo.find_method 15 (the recursive call without `seen`): local bases
# are linked by name once every class is known, so re-binding `Block` to a subclass of a
# class derived from the first `Block` links `Residual` to the second `Block` and that
# `Block` back to `Residual`: a cycle. Neither defines `__init__`; the code's lookup for it
# stops at the class it has seen, the mutant's starts afresh at each step and recurses
# until the recursion limit, so `model = Block()` goes unanalysed (an AG000). The features
# computed once before the loop still reach every step's backward: the AG001 torch raises.
REBOUND_CLASS_CYCLE = """import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Residual(Block):
    def forward(self, x):
        return x + super().forward(x)


class Block(Residual):  # from here on, every Block is residual
    pass


torch.manual_seed(0)
backbone = nn.Linear(3, 4)
features = backbone(torch.randn(8, 3))
model = Block()
sgd = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(features).pow(2).mean()
    sgd.zero_grad()
    loss.backward()
    sgd.step()
"""


def test_a_cycle_of_rebound_local_bases_is_searched_once():
    found = analyze(REBOUND_CLASS_CYCLE, "f.py")
    assert codes_and_lines(found) == [("AG001", 31)]


# keyed_dicts.keyed_dict 3 (`or` for `and` in the key check): a key that is not a constant
# is read for its `.value`; a Name has none, so the mutant raises an AttributeError on the
# logged `{split: loss.item()}` and the module-level code is lost with its AG001 (the
# features' graph, built once before the loop, backed through at every step).
VARIABLE_KEYED_LOG = """import torch
from torch import nn

torch.manual_seed(0)
backbone = nn.Linear(3, 4)
head = nn.Linear(4, 1)
sgd = torch.optim.SGD(head.parameters(), lr=0.1)
features = backbone(torch.randn(8, 3))
targets = torch.randn(8, 1)
history = []
for step in range(3):
    loss = (head(features) - targets).pow(2).mean()
    sgd.zero_grad()
    loss.backward()
    sgd.step()
    split = "train"
    history.append({split: loss.item()})
"""


def test_a_dict_keyed_by_a_variable_is_a_plain_container():
    assert codes_and_lines(analyze(VARIABLE_KEYED_LOG, "f.py")) == [("AG001", 14)]


# records._is_record 6 (`or` for `and`): any named decorator made a class a record. A
# registry decorator (`@register("cached")`, mmdet-style) returns the class as it is: its
# constructor is TensorDataset's, which keeps the tensors in `self.tensors`, and
# `loss_weight` stays the class's 0.5. Read as a dataclass, the first argument, `codes`
# with the encoder's graph, became `data.loss_weight`, and the loss scaled by it seemed to
# back through that graph at every step: a false AG001 where torch runs clean (the loop
# trains on detached inputs).
REGISTERED_DATASET = """import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

DATASETS = {}


def register(name):
    def add(cls):
        DATASETS[name] = cls
        return cls

    return add


@register("cached")
class CachedFeatures(TensorDataset):
    loss_weight: float = 0.5


torch.manual_seed(0)
encoder = nn.Linear(3, 4)
head = nn.Linear(4, 2)
sgd = torch.optim.SGD(head.parameters(), lr=0.1)
codes = encoder(torch.randn(8, 3))
data = CachedFeatures(codes, torch.randint(0, 2, (8,)))
for inputs, labels in DataLoader(data, batch_size=4):
    loss = data.loss_weight * F.cross_entropy(head(inputs.detach()), labels)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
"""


def test_a_registry_decorator_does_not_make_a_record():
    assert codes_and_lines(analyze(REGISTERED_DATASET, "f.py")) == []


UNDER_TORCH = {
    "rebound class cycle": (REBOUND_CLASS_CYCLE, (FREED_ERROR, 31)),
    "variable keyed log": (VARIABLE_KEYED_LOG, (FREED_ERROR, 14)),
    "registered dataset": (REGISTERED_DATASET, None),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)

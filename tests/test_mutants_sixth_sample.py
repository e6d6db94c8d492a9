"""Tests for the mutants issue 19's sixth session answered (docs/mutation.md): the five the
fifth sample left open, drawn at ddca906, and the sixth sample's survivors, drawn at e3989a9.

Three of them were right where the analysis was not: each test's program is one torch
raises on and the analysis missed before the fix beside it, and the mutant's number names
the check that was wrong or dropped too much. The other two were equivalent by a redundant
check; the check is gone, and the test holds the mutant of the simpler guard. Every program
is run with torch (the warm interpreter of tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze
from test_mutants import codes_and_lines
from torch_labels import FREED_ERROR, IN_PLACE_ERROR, assert_behaves_as_labelled

# library_submodules._classes 1 and 4 (at ddca906: `and` for `or`, `rpartition` for
# `partition`): both let `_classes` read torch's own classes, which it skipped. The mutants
# were right: the word embeddings a transformers BertEmbeddings builds are a torch
# `nn.Embedding`, whose `__init__` makes `self.weight` a Parameter; skipped, the weight read
# as a value without history, and a penalty computed from it once, before the loop, got no
# AG001 where torch raises at the second backward. `_classes` reads torch's classes now.
TORCH_LAYER_IN_A_LIBRARY_MODEL = """import torch
from transformers import BertConfig, BertModel

torch.manual_seed(0)
config = BertConfig(
    vocab_size=40, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16
)
encoder = BertModel(config)
readout = torch.nn.Linear(8, 1)
sgd = torch.optim.SGD(readout.parameters(), lr=0.1)
penalty = encoder.embeddings.position_embeddings.weight.abs().mean()
for ids in torch.randint(0, 40, (3, 2, 6)):
    fitted = readout(encoder(ids).last_hidden_state.detach()).mean()
    sgd.zero_grad()
    (fitted + penalty).backward()
    sgd.step()
"""


def test_a_torch_layer_inside_a_library_model_has_parameters():
    found = analyze(TORCH_LAYER_IN_A_LIBRARY_MODEL, "f.py")
    assert codes_and_lines(found) == [("AG001", 15)]


# added_modules.AddedModuleMixin.run_added_modules 2 (`module_key(None, ...)`, at ddca906):
# the container's key from its value alone. It differs for a container known by its path
# only: an `nn.Sequential` built with its parts (`nn.Sequential(a, b)`: a value with parts,
# no object of its own), here given to a function that adds a module to it. Calling such a
# Sequential ran its parts and returned before the added modules (calls.call_module), so
# the mutant and the code both missed this AG001; the code now runs them after the parts,
# and the mutant, which cannot find the container, still misses it.
ADDED_TO_A_BUILT_SEQUENTIAL = """import torch
from torch import nn


class Anchor(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target

    def forward(self, x):
        self.gap = (x - self.target).pow(2).mean()
        return x


def match(stack, anchor, picture):
    stack.add_module("anchor", anchor)
    lbfgs = torch.optim.LBFGS([picture], max_iter=3)

    def closure():
        lbfgs.zero_grad()
        stack(picture)
        anchor.gap.backward()
        return anchor.gap

    lbfgs.step(closure)


torch.manual_seed(0)
stack = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.Tanh())
anchor = Anchor(stack(torch.rand(1, 3, 6, 6)))
match(stack, anchor, torch.rand(1, 3, 6, 6, requires_grad=True))
"""


def test_a_module_added_to_a_sequential_built_with_parts_is_run():
    assert codes_and_lines(analyze(ADDED_TO_A_BUILT_SEQUENTIAL, "f.py")) == [("AG001", 22)]


# added_modules.AddedModuleMixin.add_module_part 2 (`self.state is None and len(args) < 2`,
# at ddca906): equivalent there, since `len(node.args) + len(node.keywords) < 2` said the
# same as `len(args) < 2` (one value per written argument) and the state is never None
# inside a call. That second check is gone; the same mutant of the guard left now lets
# `add_module(module=shift)` (no name: torch raises a TypeError and adds nothing) add the
# module, and calling the container then carries its graph: a false AG001.
def shift_program(added: str) -> str:
    return f"""import torch
from torch import nn


class Shift(nn.Module):
    def __init__(self, offset):
        super().__init__()
        self.offset = offset

    def forward(self, x):
        return x + self.offset


torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
shift = Shift(features(torch.rand(1, 3, 8, 8)))
model = nn.Sequential()
model.add_module("features", features)
try:
    {added}
except TypeError:
    pass
image = torch.rand(1, 3, 8, 8, requires_grad=True)
lbfgs = torch.optim.LBFGS([image], max_iter=4)


def closure():
    lbfgs.zero_grad()
    loss = model(image).pow(2).mean()
    loss.backward()
    return loss


lbfgs.step(closure)
"""


NAMELESS_ADD = shift_program("model.add_module(module=shift)")
NAMED_ADD = shift_program('model.add_module("shift", module=shift)')


def test_add_module_without_a_name_adds_nothing():
    assert codes_and_lines(analyze(NAMELESS_ADD, "f.py")) == []
    # The same module added with its name is run, and its kept graph is found.
    assert codes_and_lines(analyze(NAMED_ADD, "f.py")) == [("AG001", 30)]


# reparametrized.ReparametrizedMixin.note_reparametrized 7 (`not args and isinstance(...,
# ast.Starred)`, at ddca906): it differed only for `spectral_norm(*...)`, which the code
# skipped and the mutant could not key (the unpacked value is a sequence, not a layer), so
# both missed the AG007 torch raises. The code now takes the first element of a sequence
# whose parts it knows, as torch binds it; the redundant `not args` is gone.
STARRED_REPARAMETRIZATION = """import torch

torch.manual_seed(0)
layer = torch.nn.Linear(3, 4)
torch.nn.utils.spectral_norm(*(layer, "weight"))
sgd = torch.optim.SGD(layer.parameters(), lr=0.01)
value = layer(torch.randn(6, 3)).pow(2).mean()
sgd.zero_grad()
value.backward(retain_graph=True)
sgd.step()
value.backward()
"""


def test_a_layer_reparametrized_through_unpacked_arguments_is_followed():
    assert codes_and_lines(analyze(STARRED_REPARAMETRIZATION, "f.py")) == [("AG007", 10)]


# iterator_protocol._yields 1 (`todo = None`, mutmut's number at e3989a9, the sixth sample):
# no `__iter__` was taken for a generator. A generator `__iter__`'s call stands for the
# values it yields, here `(inputs, targets)` pairs; read as a function returning an
# iterator, the pair became one element of it, the union of both, so `inputs` carried the
# graph of the pre-loop `codes` that only `targets` holds (and the loop detaches): a false
# AG001 where torch runs clean.
GENERATOR_YIELDS_PAIRS = """import torch


class Batches:
    def __init__(self, inputs, targets):
        self.inputs = inputs
        self.targets = targets

    def __iter__(self):
        for i in range(0, len(self.targets), 2):
            yield self.inputs[i : i + 2], self.targets[i : i + 2]


torch.manual_seed(0)
encoder = torch.nn.Linear(3, 3)
model = torch.nn.Linear(3, 1)
sgd = torch.optim.SGD(model.parameters(), lr=0.1)
codes = encoder(torch.randn(6, 3))
for inputs, targets in Batches(torch.randn(6, 3), codes):
    loss = (model(inputs) - targets.detach()).pow(2).mean()
    sgd.zero_grad()
    loss.backward()
    sgd.step()
"""


def test_a_generator_iter_yields_its_pairs_apart():
    assert codes_and_lines(analyze(GENERATOR_YIELDS_PAIRS, "f.py")) == []


UNDER_TORCH = {
    "torch layer in a library model": (TORCH_LAYER_IN_A_LIBRARY_MODEL, (FREED_ERROR, 15)),
    "added to a built sequential": (ADDED_TO_A_BUILT_SEQUENTIAL, (FREED_ERROR, 22)),
    "nameless add": (NAMELESS_ADD, None),
    "named add": (NAMED_ADD, (FREED_ERROR, 30)),
    "starred reparametrization": (STARRED_REPARAMETRIZATION, (IN_PLACE_ERROR, 11)),
    "generator yields pairs": (GENERATOR_YIELDS_PAIRS, None),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)

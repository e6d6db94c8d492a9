"""Summaries of installed library classes (library_summaries.py, library_models/state.py).

What a summary says is checked two ways: against the library's source (the line it
names assigns the attribute, the read line reads it) and against torch (state said to
cross calls makes the second backward of a two-batch loop raise; a class said to keep
nothing runs that loop cleanly). The installed snntorch and spikingjelly are read as
they are; the EvolveGCN shape (a weight evolved by a GRU from a parameter and kept) is
rebuilt in a small library laid out here, since torch_geometric_temporal needs
torch_sparse to import.
"""

from __future__ import annotations

import ast
import importlib
import json
import linecache
import textwrap
from pathlib import Path

import pytest
import torch
from autograd_lint import environment
from autograd_lint.analysis import library_models
from autograd_lint.analysis.library_models.state import (
    forward_state,
    method_parameters,
    method_stores,
)
from autograd_lint.environment import Environment
from autograd_lint.library_summaries import LibrarySummaries

FREED = "backward through the graph a second time"


@pytest.fixture
def summaries(tmp_path):
    return LibrarySummaries(Environment(), tmp_path / "cache")


def kept(state) -> dict[str, str]:
    return {k.name: k.origin for k in state.kept}


def points_at_the_source(state) -> None:
    for attribute in state.kept:
        assigned = linecache.getline(attribute.path, attribute.line)
        read = linecache.getline(attribute.read_path, attribute.read_line)
        assert f"self.{attribute.name}" in assigned and "=" in assigned, assigned
        assert f"self.{attribute.name}" in read, read


SNNTORCH_ROWS = [r for r in library_models.rows() if r.library == "snntorch"]


@pytest.mark.parametrize("row", SNNTORCH_ROWS, ids=lambda r: r.target)
def test_snntorch_neurons_keep_what_their_row_says(summaries, row):
    """The summary, read from snntorch's source, finds the state the row (checked
    against torch in test_library_models.py) describes: no more, no less."""
    state = summaries.class_state(row.target)
    assert state is not None and state.complete
    assert kept(state) == dict.fromkeys(row.effect("keeps-state")["attributes"], "input")
    points_at_the_source(state)


def test_spikingjelly_keeps_its_membrane_in_the_memories_dict(summaries):
    from spikingjelly.activation_based import neuron

    state = summaries.class_state("spikingjelly.activation_based.neuron.LIFNode")
    assert state is not None and kept(state)["_memories"] == "input"
    memories = next(k for k in state.kept if k.name == "_memories")
    assert "/spikingjelly/activation_based/" in memories.path  # a file of the library
    points_at_the_source(state)
    # What the source shows is where the state lives at run time.
    node = neuron.LIFNode()
    node(torch.nn.Linear(3, 3)(torch.rand(2, 3)))
    assert node._memories["v"].grad_fn is not None


@pytest.mark.parametrize(
    "qualified, build",
    [
        ("torch.nn.Linear", lambda: torch.nn.Linear(3, 3)),
        ("torch.nn.LSTM", lambda: torch.nn.LSTM(3, 3)),
        ("torch.nn.GRU", lambda: torch.nn.GRU(3, 3)),
        ("torch.nn.BatchNorm1d", lambda: torch.nn.BatchNorm1d(3)),
        ("torch.nn.TransformerEncoderLayer", lambda: torch.nn.TransformerEncoderLayer(4, 2)),
    ],
)
def test_stateless_layers_keep_nothing_and_train_cleanly(summaries, qualified, build):
    state = summaries.class_state(qualified)
    assert state is not None and state.kept == ()
    layer = build()
    width = 4 if "Transformer" in qualified else 3
    for _ in range(2):  # the twin of the carried-state loop: runs
        out = layer(torch.rand(2, width))
        (out[0] if isinstance(out, tuple) else out).sum().backward()


EVOLVING = {
    "evolving/__init__.py": "from .layers import *\n",
    "evolving/base.py": """
        import torch


        class Evolving(torch.nn.Module):
            def forward(self, x):
                self.step()
                return x @ self.weight

            def step(self):
                if self.weight is None:
                    self.weight = self.recurrent(self.initial_weight)
                else:
                    self.weight = self.recurrent(self.weight)
    """,
    "evolving/layers.py": """
        import torch
        from . import base

        __all__ = ["EvolveLike", "Reset"]


        class EvolveLike(base.Evolving):
            def __init__(self, n):
                super().__init__()
                self.initial_weight = torch.nn.Parameter(torch.eye(n))
                self.recurrent = torch.nn.Linear(n, n)
                self.weight = None


        class Reset(EvolveLike):
            def forward(self, x):
                self.weight = None  # evolved afresh from the parameter on every call
                return super().forward(x)
    """,
    "evolving-1.0.dist-info/top_level.txt": "evolving\n",
    "evolving-1.0.dist-info/METADATA": "Name: evolving\nVersion: 1.0\n",
}


def fake_site(tmp_path: Path, files: dict[str, str]) -> Path:
    site = tmp_path / "site"
    for name, text in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    python = tmp_path / "python"
    answer = {"path": [str(site)], "version": [3, 11, 0], "executable": str(python)}
    python.write_text(f"#!/bin/sh\necho '{environment.PROBE_MARK}{json.dumps(answer)}'\n")
    python.chmod(0o755)
    return python


def import_from(site: Path, module: str):
    import sys

    sys.path.insert(0, str(site))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(site))


def test_a_weight_evolved_from_a_parameter_and_kept_is_state(tmp_path, monkeypatch):
    python = fake_site(tmp_path, EVOLVING)
    found = LibrarySummaries(Environment(python), tmp_path / "cache")
    state = found.class_state("evolving.EvolveLike")
    assert kept(state) == {"weight": "module"}
    assert state.kept[0].path.endswith("evolving/base.py")
    points_at_the_source(state)
    assert found.class_state("evolving.Reset").kept == ()  # assigned before it is read
    assert found.class_state("evolving.Missing") is None
    # torch: the kept weight carries the first call's graph into the second.
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    layers = importlib.import_module("evolving.layers")
    x = torch.rand(2, 3)

    def two_calls(layer):
        try:
            for _ in range(2):
                layer(x).sum().backward()
        except RuntimeError as exc:
            assert FREED in str(exc)
            return True
        return False

    assert two_calls(layers.EvolveLike(3))
    assert not two_calls(layers.Reset(3))


def test_an_answer_is_read_back_from_disk_until_a_file_it_read_changes(tmp_path, monkeypatch):
    python = fake_site(tmp_path, EVOLVING)
    cache = tmp_path / "cache"
    first = LibrarySummaries(Environment(python), cache).class_state("evolving.EvolveLike")
    (entry,) = cache.rglob("*.json")
    assert entry.parent.name == "evolving-1.0"
    # The second open parses nothing.
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: pytest.fail("parsed again"))
    assert LibrarySummaries(Environment(python), cache).class_state("evolving.EvolveLike") == first
    # A base class's file changes: the answer is computed again, and differs.
    monkeypatch.setattr(ast, "parse", real_parse)
    base = tmp_path / "site" / "evolving" / "base.py"
    base.write_text(base.read_text().replace("self.weight = self.recurrent", "w = self.recurrent"))
    again = LibrarySummaries(Environment(python), cache).class_state("evolving.EvolveLike")
    assert again.kept == ()


def test_another_analyzers_answers_are_never_read(tmp_path, monkeypatch):
    # Summaries are kept by the analyzer that computed them (cache.analyzer_key: its version
    # and its source files), so a tree whose summary code differs does not read them, even
    # where FORMAT was not bumped.
    import autograd_lint.library_summaries as library_summaries

    python = fake_site(tmp_path, EVOLVING)
    cache = tmp_path / "cache"
    LibrarySummaries(Environment(python), cache).class_state("evolving.EvolveLike")
    (entry,) = cache.rglob("*.json")
    entry.write_text(entry.read_text().replace("weight", "not_the_weight"))
    kept = LibrarySummaries(Environment(python), cache).class_state("evolving.EvolveLike")
    assert [k for k in kept.kept if "not_the_weight" in str(k)]  # read back: same analyzer
    monkeypatch.setattr(library_summaries, "analyzer_key", lambda: "another-analyzer")
    fresh = LibrarySummaries(Environment(python), cache).class_state("evolving.EvolveLike")
    assert fresh.kept and not [k for k in fresh.kept if "not_the_weight" in str(k)]


def test_an_unwritable_cache_costs_only_the_time(tmp_path):
    python = fake_site(tmp_path, EVOLVING)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    state = LibrarySummaries(Environment(python), blocked).class_state("evolving.EvolveLike")
    assert kept(state) == {"weight": "module"}


def summary_of(source: str, **budget):
    tree = ast.parse(textwrap.dedent(source))
    chain = [("m.py", node) for node in tree.body if isinstance(node, ast.ClassDef)]
    return forward_state("m.Layer", chain, **budget)


@pytest.mark.parametrize(
    "body, expected",
    [
        # A hidden state fed back: kept.
        ("self.h = self.cell(x, self.h)\nreturn self.h", {"h": "input"}),
        # Assigned only when a condition holds: the read after it may read the old value.
        ("if x is not None:\n    self.h = x\nself.h = self.h + x\nreturn self.h", {"h": "input"}),
        # Assigned on both branches before the read: scratch, not state.
        ("if x.sum() > 0:\n    self.h = x\nelse:\n    self.h = -x\nreturn self.h", {}),
        # A counter: crosses calls, but carries nothing.
        ("self.calls = self.calls + 1\nreturn x", {}),
        # A cache filled from the input and read first.
        (
            "if 'k' in self.cache:\n    return self.cache['k']\nself.cache['k'] = x * 2\nreturn x",
            {"cache": "input"},
        ),
        # Detached before it is kept: no history.
        ("self.h = (self.h + x).detach()\nreturn self.h", {}),
    ],
)
def test_what_crosses_calls(body, expected):
    source = "class Layer:\n    def forward(self, x):\n" + textwrap.indent(body, "        ")
    assert kept(summary_of(source)) == expected


def test_the_walk_is_bounded(tmp_path):
    source = """
        class Layer:
            def forward(self, x):
                return self.a(x)

            def a(self, x):
                self.h = self.b(x, self.h)
                return self.h

            def b(self, x, h):
                return self.a(x) + h
    """
    assert kept(summary_of(source)) == {"h": "input"}  # recursion is cut, not looped
    assert not summary_of(source, max_depth=0).complete
    assert not summary_of(source, max_nodes=5).complete


def test_a_project_reaches_the_summaries_of_its_interpreters_libraries(tmp_path, monkeypatch):
    from autograd_lint.workspace import Workspace

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))

    python = fake_site(tmp_path, EVOLVING)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    workspace = Workspace(project, python=str(python))
    state = workspace.library_summaries.class_state("evolving.EvolveLike")
    assert kept(state) == {"weight": "module"}
    assert list((tmp_path / "user-cache").rglob("evolving.EvolveLike.json"))


@pytest.mark.parametrize(
    "qualified",
    [
        "transformers.BertModel",  # found through `if TYPE_CHECKING:` star imports
        "diffusers.UNet2DModel",  # through `try: ... else:` inside `if TYPE_CHECKING`
        "snntorch.Leaky",
        "lightning.LightningModule",
        "peft.PeftModel",
        "spikingjelly.activation_based.neuron.LIFNode",
    ],
)
def test_a_class_chain_is_pythons_mro_within_the_libraries(summaries, qualified):
    """Every class the chain names is a class of the real MRO, and every class of the MRO
    from a library (not torch's nn.Module and not builtins) is in the chain."""
    import builtins

    real = importlib.import_module(qualified.rpartition(".")[0])
    cls = getattr(real, qualified.rpartition(".")[2])
    chain = summaries.class_chain(qualified)
    found = [
        getattr(importlib.import_module(name.rpartition(".")[0]), name.rpartition(".")[2])
        for name in chain
    ]
    assert found[0] is cls
    library_classes = {
        c for c in cls.__mro__ if c.__module__.split(".")[0] not in ("torch", builtins.__name__)
    }
    assert set(found) == library_classes


def test_an_inherited_method_finds_its_row_along_the_chain(summaries):
    chain = summaries.class_chain("transformers.BertModel")
    rows = [library_models.lookup(f"{name}.from_pretrained") for name in chain]
    (row,) = [r for r in rows if r is not None]
    assert row.target == "transformers.PreTrainedModel.from_pretrained"
    assert row.effect("result-module") is not None


GPYTORCH_STORES = [
    (row, effect)
    for row in library_models.rows()
    if row.library == "gpytorch"
    for effect in row.effects
    if effect.kind == "stores-argument"
]


@pytest.mark.parametrize(
    "row, effect", GPYTORCH_STORES, ids=lambda x: getattr(x, "target", None) or x.get("attribute")
)
def test_the_source_shows_the_stores_the_rows_say(summaries, row, effect):
    """A row's stores-argument (checked against gpytorch in test_library_models.py) is
    what the summary reads from gpytorch's source."""
    owner, _, method = row.target.rpartition(".")
    if method[0].isupper():  # a class row: its constructor
        owner, method = row.target, "__init__"
    stores = summaries.method_stores(owner, method)
    assert effect["argument"] in stores[effect["attribute"]]


def test_a_buffer_keeps_what_it_is_given():
    source = """
        class Replay:
            def push(self, state, reward):
                self.memory.append(state)
                self.rewards[len(self.rewards)] = reward
                self.count = self.count + 1

        class Layer:
            def forward(self, x):
                y = x * 2
                self.history.append(y)
                return y
    """
    tree = ast.parse(textwrap.dedent(source))
    replay, layer = (("m.py", node) for node in tree.body)
    stores, complete = method_stores([replay], "push")
    assert complete and stores == {"memory": ("state",), "rewards": ("reward",)}
    assert kept(forward_state("m.Layer", [layer])) == {"history": "input"}


def test_stores_follow_base_constructors_and_star_arguments():
    """What a constructor stores through its bases: `super().__init__(*items)` into a
    `*items` base, `Base.__init__(self, kept=value)` named by class, after local
    transformations of the argument (botorch's SingleTaskGP into gpytorch's ExactGP)."""
    source = """
        class Holder:
            def __init__(self, kept, options=None):
                self.kept = kept
                self.options = options

        class Transforming(Holder):
            def __init__(self, raw, scale=2.0):
                scaled = self._rescale(raw, factor=scale)
                Holder.__init__(self, kept=scaled)

            def _rescale(self, value, factor):
                return value * factor

        class Many:
            def __init__(self, *parts):
                self.parts = list(parts)

        class Listing(Many):
            def __init__(self, *members):
                super().__init__(*members)
    """
    tree = ast.parse(textwrap.dedent(source))
    holder, transforming, many, listing = (("m.py", node) for node in tree.body)
    # `scale` multiplies the kept value: it is computed from both.
    assert method_stores([transforming, holder], "__init__")[0] == {"kept": ("raw", "scale")}
    assert method_stores([listing, many], "__init__")[0] == {"parts": ("*",)}
    assert method_parameters([transforming, holder], "__init__") == ("raw", "scale")
    assert method_parameters([listing, many], "__init__") == ("*",)

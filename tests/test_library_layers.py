"""Library layers no row describes, run as their own source says (analysis/library_layers.py).

torch_geometric_temporal's EvolveGCNO and EvolveGCNH evolve their GCN weight with a GRU
and keep it on `self.weight`, feeding it back into the next call: a loop across epochs
that never calls `reinitialize_weight()` back-propagates the first epoch's graph again
(benedekrozemberczki/pytorch_geometric_temporal#297, #305). No row names these classes:
the summary of their source (library_summaries.py) says what forward keeps, and the
interpreter carries it.

Ground truth: the library's own files, run. torch_geometric_temporal needs torch_sparse to
import, which is not installed here; evolvegcno.py uses it only for the annotation of a
cache slot (`_cached_adj_t: Optional[SparseTensor]`, line 55), so the programs run with a
stand-in module that defines that one name, and everything else is the library's code.
torch_geometric's GCNConv keeps `_cached_edge_index` from its edges only (and only when
`cached=True`): what the edges carry, nothing, so its training loop is clean.
"""

from __future__ import annotations

import json
import linecache
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.analysis.library_layers import summary_state

FREED = "backward through the graph a second time"
INPLACE = "modified by an inplace operation"
STAND_IN = (
    "import sys, types\n"
    "sys.modules.setdefault('torch_sparse', types.ModuleType('torch_sparse'))\n"
    "sys.modules['torch_sparse'].SparseTensor = type('SparseTensor', (), {})\n"
)


def program(layer: str, make: str, per_epoch: str = "", after_step: str = "") -> str:
    """A temporal GNN regressor over a few snapshots, one backward per epoch."""
    return (
        "import torch\n"
        f"from torch_geometric_temporal.nn.recurrent import {layer}\n"
        "\n"
        "torch.manual_seed(0)\n"
        "snapshots = [\n"
        "    (torch.randn(5, 4), torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]), torch.randn(5))\n"
        "    for _ in range(3)\n"
        "]\n"
        "\n"
        "\n"
        "class Regressor(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        self.recurrent = {make}\n"
        "        self.head = torch.nn.Linear(4, 1)\n"
        "\n"
        "    def forward(self, x, edge_index):\n"
        "        return self.head(torch.relu(self.recurrent(x, edge_index))).squeeze(-1)\n"
        "\n"
        "\n"
        "model = Regressor()\n"
        "optimizer = torch.optim.Adam(model.parameters(), lr=0.01)\n"
        "for epoch in range(3):\n"
        f"{textwrap.indent(per_epoch, '    ')}"
        "    cost = 0\n"
        "    for x, edge_index, y in snapshots:\n"
        "        cost = cost + ((model(x, edge_index) - y) ** 2).mean()\n"
        "    cost.backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        f"{textwrap.indent(after_step, '    ')}"
    )


RUNNER = STAND_IN + textwrap.dedent("""\
    import json
    results = []
    for source in json.loads(sys.stdin.read()):
        try:
            exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})
            results.append("clean")
        except RuntimeError as exc:
            if FREED in str(exc):
                results.append("freed")
            elif INPLACE in str(exc):
                results.append("inplace")
            else:
                results.append(repr(exc))
    print(json.dumps(results))
    """)


def run_all(sources: list[str]) -> dict[str, str]:
    """Run every program with the installed libraries, in one fresh interpreter."""
    # torch_geometric renders a module file per MessagePassing class into the temporary
    # folder and never removes it: give it one that is removed.
    with tempfile.TemporaryDirectory(prefix="library-layers-") as scratch:
        done = subprocess.run(
            [sys.executable, "-c", f"FREED, INPLACE = {FREED!r}, {INPLACE!r}\n" + RUNNER],
            input=json.dumps(sources), capture_output=True, text=True, timeout=600,
            env={**os.environ, "TMPDIR": scratch},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(zip(sources, json.loads(done.stdout.splitlines()[-1])))


def errors(source: str):
    return [f for f in analyze(source, "regressor.py") if f.code in ("AG001", "AG002", "AG007")]


EVOLVE_O = ("EvolveGCNO", "EvolveGCNO(4)", "evolvegcno.py")
EVOLVE_H = ("EvolveGCNH", "EvolveGCNH(5, 4)", "evolvegcnh.py")
LAYERS = [EVOLVE_O, EVOLVE_H]
RESETS = [
    ("model.recurrent.reinitialize_weight()\n", ""),
    ("model.recurrent.weight = None\n", ""),
    ("", "model.recurrent.weight = model.recurrent.weight.detach()\n"),
]
GCN_LOOP = """\
import torch
from torch_geometric.nn import GCNConv

torch.manual_seed(0)
features = torch.randn(5, 4)
edge_index = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
target = torch.randn(5, 2)
encoder = torch.nn.Linear(4, 4)
conv = GCNConv(4, 2, cached=CACHED)
optimizer = torch.optim.Adam([*conv.parameters(), *encoder.parameters()], lr=0.01)
for epoch in range(3):
    optimizer.zero_grad()
    loss = ((conv(encoder(features), edge_index) - target) ** 2).mean()
    loss.backward()
    optimizer.step()
"""


# The graph kept alive across epochs instead (#305's first reply): the next epoch's backward
# reaches the weights that optimizer.step() changed in place.
def retained(layer: str, make: str) -> str:
    return program(layer, make).replace("cost.backward()", "cost.backward(retain_graph=True)")


ALL = [
    *(program(layer, make) for layer, make, _ in LAYERS),
    *(retained(layer, make) for layer, make, _ in LAYERS),
    *(program(layer, make, *reset) for layer, make, _ in LAYERS for reset in RESETS),
    *(GCN_LOOP.replace("CACHED", cached) for cached in ("False", "True")),
]


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    return run_all(ALL)


@pytest.mark.parametrize("layer, make, file", LAYERS, ids=["O", "H"])
def test_an_evolved_weight_kept_across_epochs_is_found_inside_the_library(
    outcomes, layer, make, file
):
    source = program(layer, make)
    assert outcomes[source] == "freed"
    found = errors(source)
    assert [f.code for f in found] == ["AG001"]
    inside = [step for step in found[0].evidence if step.path]
    assert len(inside) == 1
    path = inside[0].path.replace("\\", "/")
    assert path.endswith(f"torch_geometric_temporal/nn/recurrent/{file}")
    assert "self.weight" in linecache.getline(inside[0].path, inside[0].span.start.line)
    assert "keeps `self.weight`" in inside[0].message


@pytest.mark.parametrize("layer, make, file", LAYERS, ids=["O", "H"])
@pytest.mark.parametrize(
    "per_epoch, after_step", RESETS, ids=["reinitialize", "set-to-none", "detached-after-step"]
)
def test_the_weight_reset_or_detached_per_epoch_is_clean(
    outcomes, layer, make, file, per_epoch, after_step
):
    source = program(layer, make, per_epoch, after_step)
    assert outcomes[source] == "clean"
    assert errors(source) == []


@pytest.mark.parametrize("layer, make, file", LAYERS, ids=["O", "H"])
def test_retaining_the_kept_graph_across_a_step_is_found_as_an_in_place_change(
    outcomes, layer, make, file
):
    source = retained(layer, make)
    assert outcomes[source] == "inplace"
    assert [f.code for f in errors(source)] == ["AG007"]


def test_the_summary_finds_the_reset_method_in_the_source():
    state = summary_state("torch_geometric_temporal.nn.recurrent.EvolveGCNO")
    assert state is not None and state.get("attributes") == ("weight",)
    assert state.from_module  # evolved from the layer's own parameter by its GRU
    assert state.get("reset-by") == (".reinitialize_weight",)


@pytest.mark.parametrize("cached", ["False", "True"])
def test_a_layer_keeping_what_its_edges_carry_trains_cleanly(outcomes, cached):
    """GCNConv keeps the normalised edges (edge_index, edge_weight), not the features:
    features with a graph do not make the kept cache carry one."""
    source = GCN_LOOP.replace("CACHED", cached)
    state = summary_state("torch_geometric.nn.GCNConv")
    assert state is not None and not state.from_module
    assert all(set(k.inputs) <= {"edge_index", "edge_weight"} for k in state.kept)
    assert outcomes[source] == "clean"
    assert errors(source) == []


@pytest.mark.parametrize("qualified", [
    "torch.nn.Linear", "builtins.Exception", "pathlib.Path", "torch_geometric.nn.GATConv",
])  # fmt: skip
def test_classes_that_keep_nothing_or_are_not_a_librarys_have_no_state(qualified):
    assert summary_state(qualified) is None


SPIKING_LOOP = """\
import torch
import snntorch as snn

torch.manual_seed(0)
fc = torch.nn.Linear(3, 3)
lif = snn.Leaky(beta=0.9)
optimizer = torch.optim.SGD(fc.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    spk, mem = lif(fc(torch.rand(2, 3)))
    mem.sum().backward()
    optimizer.step()
"""


def test_a_row_layers_finding_points_at_the_line_of_the_library_that_keeps_its_state():
    """snntorch's Leaky is a keeps-state row; its evidence step is the line of its
    forward that keeps `self.mem`, which the summary of its source finds."""
    namespace: dict = {}
    try:
        exec(compile(SPIKING_LOOP, "<spiking loop>", "exec"), namespace)
    except RuntimeError as exc:
        assert FREED in str(exc)
    else:
        raise AssertionError("the loop ran: Leaky kept no graph")
    (found,) = errors(SPIKING_LOOP)
    inside = [step for step in found.evidence if step.path]
    assert len(inside) == 1
    assert inside[0].path.replace("\\", "/").endswith("snntorch/_neurons/leaky.py")
    assert "self.mem" in linecache.getline(inside[0].path, inside[0].span.start.line)
    assert "reset_mem()" in inside[0].message


SEQUENTIAL_SPIKING = """\
import torch
from spikingjelly.activation_based import functional, layer, neuron

torch.manual_seed(0)
net = torch.nn.Sequential(layer.Linear(3, 3), layer.BatchNorm1d(3), neuron.LIFNode())
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
RESET    optimizer.zero_grad()
    net(torch.rand(4, 3)).sum().backward()
    optimizer.step()
"""


@pytest.mark.parametrize("reset", [False, True], ids=["no-reset", "reset-per-step"])
def test_library_layers_in_a_sequential_are_modules_and_the_neuron_keeps_its_state(reset):
    """spikingjelly's layer.Linear has a forward (its base's): a module, so the Sequential
    runs its parts in order and the LIF node's kept `v` crosses steps until reset_net."""
    source = SEQUENTIAL_SPIKING.replace("RESET", "    functional.reset_net(net)\n" if reset else "")
    namespace: dict = {}
    try:
        exec(compile(source, "<sequential>", "exec"), namespace)
        raised = False
    except RuntimeError as exc:
        assert FREED in str(exc)
        raised = True
    assert raised == (not reset)
    assert [f.code for f in errors(source)] == ([] if reset else ["AG001"])

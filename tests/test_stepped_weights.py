"""AG007 from the interpreter (analysis/stepped.py): a backward through a graph whose saved
weights an optimizer step updated in place — across iterations, through methods and
`nn.Sequential`, with ownership from `.parameters()`, never from names.

Each program's verdict is checked both ways: the analysis, and torch running it (a crash
must raise "modified by an inplace operation" from the line the finding's FAILS step
names; a clean program must run).
"""

from __future__ import annotations

import traceback

import pytest
from autograd_lint.analysis import Role, analyze, torch_api
from autograd_lint.rules import RULE_MODULES

MODIFIED = "modified by an inplace operation"

# The LSTM-style loop "fixed" with retain_graph=True, as AG007's own first example has it.
CARRIED_GRU = RULE_MODULES["AG007"].INVALID[0]

PROGRAMS = {
    # The LSTM-style loop "fixed" with retain_graph=True: iteration 2 crashes.
    "carried-state-retained": (CARRIED_GRU, (10, 9)),
    # Detaching the state makes the retain harmless (and needless): it runs.
    "carried-state-detached": (
        CARRIED_GRU.replace("    out, h = rnn(", "    h = h.detach()\n    out, h = rnn("),
        None,
    ),
    # An nn.Parameter of a local module, used with `@` over an input that requires grad.
    "parameter-matmul": (
        """
import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 3))

    def forward(self, x):
        return torch.tanh(x @ self.w)


cell = Cell()
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
x = torch.randn(2, 3, requires_grad=True)
y = cell(x)
y.sum().backward(retain_graph=True)
opt.step()
(y * y).sum().backward()
""",
        (20, 21),
    ),
    # The same with the step after both passes: it runs.
    "step-after-both": (
        """
import torch
net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
y = net(torch.randn(2, 3))
y.sum().backward(retain_graph=True)
(y * y).sum().backward()
opt.step()
""",
        None,
    ),
    # The step between the passes, the optimizer holding a Sequential's parameters.
    "sequential-step-between": (
        """
import torch
net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
y = net(torch.randn(2, 3))
y.sum().backward(retain_graph=True)
opt.step()
(y * y).sum().backward()
""",
        (7, 8),
    ),
    # An optimizer over another module: the weights the rest of the graph saved are intact.
    "other-module-stepped": (
        """
import torch
body, head = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)
other = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(other.parameters(), lr=0.1)
z = torch.tanh(body(torch.randn(2, 3)))
y = head(z)
y.sum().backward(retain_graph=True)
opt.step()
(y * 2).sum().backward()
""",
        None,
    ),
    # A first layer over plain data keeps only its input: stepping it breaks nothing.
    "single-layer-on-data": (
        """
import torch
lin = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
y = lin(torch.randn(2, 3))
y.sum().backward(retain_graph=True)
opt.step()
(y * 2).sum().backward()
""",
        None,
    ),
}


def run(source: str) -> tuple[str | None, int | None]:
    import torch

    torch.manual_seed(0)
    try:
        exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})  # noqa: S102
    except RuntimeError as exc:
        lines = [
            f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<program>"
        ]
        return str(exc), lines[-1]
    return None, None


@pytest.mark.parametrize("name", PROGRAMS)
def test_torch_and_the_analysis_agree(name: str) -> None:
    source, expected = PROGRAMS[name]
    error, line = run(source)
    findings = [f for f in analyze(source) if f.code == "AG007"]
    if expected is None:
        assert error is None
        assert findings == []
        return
    step_line, backward_line = expected
    assert MODIFIED in error and line == backward_line
    (finding,) = findings
    assert finding.span.start.line == step_line
    assert [s.span.start.line for s in finding.steps(Role.FAILS)] == [backward_line]


def test_the_crash_replaces_the_slower_steps_warning() -> None:
    # AG004 says a retained carried graph makes each step slower; here it crashes instead.
    codes = sorted((f.span.start.line, f.code) for f in analyze(CARRIED_GRU))
    assert codes == [(10, "AG007")]


def test_ownership_comes_from_parameters_not_names() -> None:
    # Neutral names, and an optimizer named like the one that steps: nothing depends on it.
    source = CARRIED_GRU.replace("rnn", "m1").replace("opt", "v2")
    assert [f.span.start.line for f in analyze(source) if f.code == "AG007"] == [10]


# -- the vocabulary rows, each checked against torch ----------------------------------------

# How to call each WEIGHT_SAVING_FUNCTIONS row as f(x, w): (module, x shape, w shape).
CALLS = {
    "matmul": ("torch", (2, 3), (3, 4)),
    "mm": ("torch", (2, 3), (3, 4)),
    "bmm": ("torch", (2, 2, 3), (2, 3, 4)),
    "mv": ("torch", (2, 3), (3,)),
    "mul": ("torch", (2, 3), (2, 3)),
    "linear": ("torch.nn.functional", (2, 3), (4, 3)),
}


def test_every_weight_saving_row_has_a_check() -> None:
    assert set(CALLS) == torch_api.WEIGHT_SAVING_FUNCTIONS


@pytest.mark.parametrize("name", sorted(CALLS))
def test_weight_saving_function_keeps_the_weight_for_the_input_gradient(name: str) -> None:
    import importlib

    import torch

    module, x_shape, w_shape = CALLS[name]
    function = getattr(importlib.import_module(module), name)
    w = torch.nn.Parameter(torch.randn(w_shape))
    x = torch.randn(x_shape, requires_grad=True)  # an input with history of its own
    out = function(x, w)
    with torch.no_grad():
        w.add_(1.0)  # what optimizer.step() does
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()
    # Over plain data only the input is kept: the same update breaks nothing.
    out = function(torch.randn(x_shape), w)
    with torch.no_grad():
        w.add_(1.0)
    out.sum().backward()


@pytest.mark.parametrize("name", sorted(torch_api.RECURRENT_LAYERS))
def test_recurrent_layer_keeps_its_weights_over_plain_data(name: str) -> None:
    import torch

    layer = getattr(torch.nn, name)(2, 3, batch_first=True)
    out, _ = layer(torch.randn(1, 4, 2))  # plain data, no initial state
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(0.5)
    with pytest.raises(RuntimeError, match=MODIFIED):
        out.sum().backward()

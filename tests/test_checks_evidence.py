"""AG005-AG007 know values by evidence, not by their names (issue 12), checked with torch.

Each program is analysed and run. The AG005 programs record, after every optimizer step,
whether the gradient the step used is that of the current batch alone (the test compares
it with the current loss's gradient taken separately): a program AG005 flags must step
with piled-up gradients at least once, a quiet one never. Names are neutral or misleading
on purpose (`clear_grads` that clears nothing, an optimizer called `u`), so only the
evidence the checkers read can decide.
"""

from __future__ import annotations

import textwrap

import pytest
from autograd_lint.analysis import analyze

# Shared by the AG005 programs: `stepped(model, loss_fn)` is called right before a step
# and records whether the gradients about to be used are the current batch's alone.
AG005_HARNESS = """
import torch

PILED_UP = []

def stepped(model, loss_fn):
    held = [p.grad for p in model.parameters()]
    alone = torch.autograd.grad(loss_fn(), list(model.parameters()))  # .grad untouched
    PILED_UP.append(not all(torch.allclose(a, b) for a, b in zip(held, alone)))

torch.manual_seed(0)
"""

AG005_PROGRAMS = {
    # A function of the file named like a clearing helper whose body only reports: its
    # body decides, and it clears nothing.
    "a clear_grads that only reports": (
        """
def clear_grads(model):
    print(sum(p.numel() for p in model.parameters()))

net = torch.nn.Linear(3, 1)
u = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    x = torch.randn(4, 3)
    net(x).pow(2).mean().backward()
    stepped(net, lambda: net(x).pow(2).mean())
    u.step()  # flagged
    clear_grads(net)
""",
        True,
    ),
    # A neutrally named helper whose body clears: it counts as clearing.
    "a neutrally named helper that clears": (
        """
def tidy(model):
    for p in model.parameters():
        p.grad = None

net = torch.nn.Linear(3, 1)
u = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    x = torch.randn(4, 3)
    net(x).pow(2).mean().backward()
    stepped(net, lambda: net(x).pow(2).mean())
    u.step()
    tidy(net)
""",
        False,
    ),
    # The helper clears through another function of the file.
    "a helper that clears through another one": (
        """
def wipe(model):
    model.zero_grad()

def tidy(model):
    wipe(model)

net = torch.nn.Linear(3, 1)
u = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    x = torch.randn(4, 3)
    net(x).pow(2).mean().backward()
    stepped(net, lambda: net(x).pow(2).mean())
    u.step()
    tidy(net)
""",
        False,
    ),
    # An optimizer class imported under another name, the optimizer called `u` and never
    # cleared: the constructor resolved through the import says what `u` is.
    "an optimizer class imported under an alias": (
        """
from torch.optim import SGD as Upd

def fit(m, batches):
    u = Upd(m.parameters(), lr=0.1)
    for x in batches:
        m(x).pow(2).mean().backward()
        stepped(m, lambda: m(x).pow(2).mean())
        u.step()  # flagged

fit(torch.nn.Linear(3, 1), [torch.randn(4, 3) for _ in range(3)])
""",
        True,
    ),
    # torch.autograd.backward imported under another name is a backward all the same.
    "autograd's backward imported under another name": (
        """
from torch.autograd import backward as propagate

net = torch.nn.Linear(3, 1)
u = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    x = torch.randn(4, 3)
    propagate(net(x).pow(2).mean())
    stepped(net, lambda: net(x).pow(2).mean())
    u.step()  # flagged
""",
        True,
    ),
    # An AMP grad scaler known by its use (`.scale(loss).backward()`), stepping an
    # optimizer that is a bare parameter: a scaler steps only optimizers.
    "a grad scaler known by its use": (
        """
def fit(m, v2, v3, batches):
    for x in batches:
        v3.scale(m(x).pow(2).mean()).backward()
        stepped(m, lambda: v3.scale(m(x).pow(2).mean()))
        v3.step(v2)  # flagged
        v3.update()

net = torch.nn.Linear(3, 1)
fit(net, torch.optim.SGD(net.parameters(), lr=0.1), torch.amp.GradScaler("cpu"),
    [torch.randn(4, 3) for _ in range(3)])
""",
        True,
    ),
    # The same scaler, the gradients cleared through the optimizer it steps.
    "a grad scaler known by its use, cleared": (
        """
def fit(m, v2, v3, batches):
    for x in batches:
        v2.zero_grad()
        v3.scale(m(x).pow(2).mean()).backward()
        stepped(m, lambda: v3.scale(m(x).pow(2).mean()))
        v3.step(v2)
        v3.update()

net = torch.nn.Linear(3, 1)
fit(net, torch.optim.SGD(net.parameters(), lr=0.1), torch.amp.GradScaler("cpu"),
    [torch.randn(4, 3) for _ in range(3)])
""",
        False,
    ),
}


def _run(source: str) -> dict:
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, "<program>", "exec"), namespace)  # noqa: S102
    return namespace


def _flagged_lines(source: str, code: str) -> list[int]:
    return sorted(f.span.start.line for f in analyze(source, "program.py") if f.code == code)


@pytest.mark.parametrize("name", AG005_PROGRAMS)
def test_ag005_agrees_with_the_gradients_torch_steps_with(name: str) -> None:
    body, piles_up = AG005_PROGRAMS[name]
    source = AG005_HARNESS + textwrap.dedent(body)
    marked = [n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# flagged")]
    observed = _run(source)["PILED_UP"]
    assert observed and any(observed) is piles_up, observed
    assert _flagged_lines(source, "AG005") == marked
    assert bool(marked) is piles_up


# -- AG006 -------------------------------------------------------------------------------
# Module-level training code; a `.data` read marked `# tensor: NAME` must be reported and
# NAME must hold a tensor when the program ends, one marked `# other: NAME` must stay quiet
# and NAME must hold something else.
AG006_PROGRAMS = {
    # Neutral names: the model is one because its result is back-propagated, the loss a
    # tensor because it is; a misleadingly named object holding a list is neither.
    "tensors by evidence, an object named like a loss": """
import torch

class Box:
    def __init__(self):
        self.data = [1, 2]

v1 = torch.nn.Linear(3, 2)
v2 = torch.optim.SGD(v1.parameters(), lr=0.1)
loss = Box()
for _ in range(2):
    v3 = v1(torch.randn(4, 3))
    v4 = v3.pow(2).mean()
    v2.zero_grad()
    v4.backward()
    v2.step()
    v5 = v3.data.argmax(1)  # tensor: v3
    v6 = v4.data  # tensor: v4
    v7 = loss.data  # other: loss
""",
    # Parameters through a list of them and through an optimizer's param groups.
    "parameters through a list and param_groups": """
import torch

v1 = torch.nn.Linear(3, 2)
v2 = torch.optim.SGD(v1.parameters(), lr=0.1)
v3 = list(v1.parameters())
v1(torch.randn(4, 3)).sum().backward()
v2.step()
for v4 in v3:
    v5 = v4.data.norm()  # tensor: v4
for v6 in v2.param_groups:
    for v7 in v6["params"]:
        v8 = v7.data.abs()  # tensor: v7
""",
    # Elements whose `.grad` is read (a hand-written SGD over a list it was given), and
    # the elements of a module's returned tuple (an RNN's output and state).
    "by their gradients, and a module's returned tuple": """
import torch

v1 = torch.nn.RNN(3, 4)
v2 = [v1.weight_ih_l0, v1.bias_ih_l0]
v3 = None
for _ in range(2):
    v4, v3 = v1(torch.randn(5, 1, 3), v3)
    v4.sum().backward()
    v3 = v3.data  # tensor: v3
    for v5 in v2:
        v5.data -= 0.01 * v5.grad  # tensor: v5
        v5.grad = None
""",
    # A torch module imported under a name of the user's choosing.
    "torch functional under another alias": """
import torch
import torch.nn.functional as fn

v1 = torch.nn.Linear(3, 2)
v2 = fn.log_softmax(v1(torch.randn(4, 3)), dim=1)
v3 = fn.nll_loss(v2, torch.tensor([0, 1, 0, 1]))
v3.backward()
v4 = v2.data.exp()  # tensor: v2
""",
}


def _marks(source: str, kind: str) -> dict[int, str]:
    tag = f"# {kind}: "
    return {
        n: line.rpartition(tag)[2].strip()
        for n, line in enumerate(source.splitlines(), 1)
        if tag in line
    }


@pytest.mark.parametrize("name", AG006_PROGRAMS)
def test_ag006_reports_data_reads_of_what_torch_shows_are_tensors(name: str) -> None:
    import torch

    source = AG006_PROGRAMS[name]
    tensors, others = _marks(source, "tensor"), _marks(source, "other")
    namespace = _run(source)
    assert all(isinstance(namespace[n], torch.Tensor) for n in tensors.values()), tensors
    assert not any(isinstance(namespace[n], torch.Tensor) for n in others.values()), others
    assert _flagged_lines(source, "AG006") == sorted(tensors)


# -- AG007 -------------------------------------------------------------------------------
# torch's modules imported under names of the user's choosing: the in-place op is known
# through the import, and torch raises at the backward.
AG007_PROGRAMS = {
    "functional under another alias": """
import torch
import torch.nn.functional as fn

v1 = torch.randn(3, requires_grad=True)
v2 = torch.sigmoid(v1)
fn.relu(v2, inplace=True)  # modified
v2.sum().backward()  # raises
""",
    "an in-place module from torch.nn imported under another name": """
import torch
from torch import nn as layers

v1 = layers.ReLU(inplace=True)
v2 = torch.randn(3, requires_grad=True)
v3 = v2.exp()
v1(v3)  # modified
v3.sum().backward()  # raises
""",
}


@pytest.mark.parametrize("name", AG007_PROGRAMS)
def test_ag007_knows_torch_ops_through_the_imports(name: str) -> None:
    source = AG007_PROGRAMS[name]
    lines = source.splitlines()
    modified = next(n for n, line in enumerate(lines, 1) if line.endswith("# modified"))
    raises = next(n for n, line in enumerate(lines, 1) if line.endswith("# raises"))
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as caught:
        _run(source)
    program_frames = [entry for entry in caught.traceback if entry.path == "<program>"]
    assert program_frames[-1].lineno + 1 == raises
    assert _flagged_lines(source, "AG007") == [modified]

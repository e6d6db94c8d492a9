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

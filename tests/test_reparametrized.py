"""Layers whose weight torch recomputes from their parameters (analysis/reparametrized.py).

`spectral_norm(layer)`, `weight_norm(layer)` and their `parametrizations` versions make
the layer compute its weight before each call by ops that save the parameters, so one
output back-propagated twice with an optimizer step between raises "modified by an
inplace operation" even over plain data, where the plain layer runs (pytorch/pytorch#55368).
Every program here is run by torch, and its verdict is the analysis's.
"""

from __future__ import annotations

import subprocess
import textwrap

import pytest
from autograd_lint.analysis import analyze, library_models
from autograd_lint.analysis.reparametrized import cited_site

INPLACE = "modified by an inplace operation"

WRAPPERS = {
    "torch.nn.utils.spectral_norm": "torch.nn.utils.spectral_norm({})",
    "torch.nn.utils.weight_norm": "torch.nn.utils.weight_norm({})",
    "torch.nn.utils.parametrizations.spectral_norm": (
        "torch.nn.utils.parametrizations.spectral_norm({})"
    ),
    "torch.nn.utils.parametrizations.weight_norm": (
        "torch.nn.utils.parametrizations.weight_norm({})"
    ),
    "plain layer": "{}",
}


def program(layer: str, between: str = "sgd.step()", after: str = "") -> str:
    """One output over plain data, back-propagated twice; `between` runs between them."""
    return textwrap.dedent(
        f"""\
        import torch

        torch.manual_seed(0)
        box = {layer.format("torch.nn.Linear(3, 4)")}
        sgd = torch.optim.SGD(box.parameters(), lr=0.01)
        value = box(torch.randn(6, 3)).pow(2).mean()
        sgd.zero_grad()
        value.backward(retain_graph=True)
        {between}
        value.backward()
        {after}
        """
    )


def torch_verdict(text: str, tmp_path, torch_python: str) -> str:
    script = tmp_path / "program.py"
    script.write_text(text, encoding="utf-8")
    done = subprocess.run([torch_python, str(script)], capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        return "ran"
    assert INPLACE in done.stderr, done.stderr
    return "inplace"


def ag007(text: str):
    return [f for f in analyze(text, "program.py") if f.code == "AG007"]


@pytest.mark.parametrize("target", WRAPPERS)
def test_a_step_between_two_backwards_breaks_only_a_reparametrized_layer(
    target, tmp_path, torch_python
):
    text = program(WRAPPERS[target])
    found = ag007(text)
    if target == "plain layer":
        assert torch_verdict(text, tmp_path, torch_python) == "ran"
        assert found == []
        return
    assert torch_verdict(text, tmp_path, torch_python) == "inplace"
    assert [f.span.start.line for f in found] == [9]  # the step
    (finding,) = found
    fails = [s for s in finding.evidence if s.role.name == "FAILS"]
    assert [s.span.start.line for s in fails] == [10]
    # The evidence goes into torch's source, at the line that recomputes the weight.
    row = library_models.lookup(target)
    inside = [s for s in finding.evidence if s.path]
    assert len(inside) == 1 and inside[0].message == row.says
    site = cited_site(row)
    assert inside[0].path == site.block.path and inside[0].span.start.line == site.node.lineno


@pytest.mark.parametrize("target", [t for t in WRAPPERS if t != "plain layer"])
def test_both_backwards_before_the_step_run_and_stay_clean(target, tmp_path, torch_python):
    text = program(WRAPPERS[target], between="", after="sgd.step()")
    assert torch_verdict(text, tmp_path, torch_python) == "ran"
    assert ag007(text) == []


def test_every_row_cites_a_line_of_the_installed_torch():
    rows = [r for r in library_models.rows() if r.effect("reparametrizes-weight") is not None]
    assert {r.target for r in rows} == set(WRAPPERS) - {"plain layer"}
    for row in rows:
        site = cited_site(row)
        assert site is not None, row.source
        assert site.block.path.endswith(row.source.partition(":")[0].strip())


def test_a_layer_reparametrized_in_place_inside_a_model_is_followed(tmp_path, torch_python):
    """`spectral_norm(self.first)` in `__init__`, its result dropped: the layer itself is
    changed (torch registers the hook on it), inside an nn.Sequential."""
    text = textwrap.dedent(
        """\
        import torch
        from torch import nn
        from torch.nn.utils import spectral_norm


        class Scorer(nn.Module):
            def __init__(self):
                super().__init__()
                self.first = nn.Linear(3, 8)
                spectral_norm(self.first)
                self.rest = nn.Sequential(nn.ReLU())

            def forward(self, x):
                return self.rest(self.first(x))


        torch.manual_seed(0)
        net = Scorer()
        adam = torch.optim.Adam(net.parameters(), lr=1e-3)
        for _ in range(2):
            total = net(torch.randn(5, 3)).sum()
            adam.zero_grad()
            total.backward(retain_graph=True)
            adam.step()
            total.backward()
        """
    )
    assert torch_verdict(text, tmp_path, torch_python) == "inplace"
    assert [f.span.start.line for f in ag007(text)] == [24]

"""The file's own torch.autograd.Function classes, run as torch runs them
(analysis/custom_functions.py).

Each backward pass that reaches `Fn.apply(...)`'s node calls `Fn.backward`; a backward
that differentiates a graph its forward built under enable_grad frees that inner graph on
its first call, whatever the outer pass retained (pytorch/pytorch#65536). Every program
is run by torch in one subprocess, and its verdict is compared with the analysis's.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

import pytest
from autograd_lint.analysis import analyze

FREED = "backward through the graph a second time"

FORWARD_KEEPS_INNER_GRAPH = """\
    @staticmethod
    def forward(ctx, a):
        with torch.enable_grad():
            inner = a.detach().requires_grad_()
            shaped = inner * torch.tanh(inner)
        ctx.save_for_backward(shaped, inner)
        return shaped.detach()

    @staticmethod
    def backward(ctx, upstream):
        shaped, inner = ctx.saved_tensors
        return torch.autograd.grad(shaped, inner, upstream{inner_retain})[0]
"""

FORWARD_KEEPS_INPUT = """\
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * torch.tanh(a)

    @staticmethod
    def backward(ctx, upstream):
        (a,) = ctx.saved_tensors
        with torch.enable_grad():
            inner = a.detach().requires_grad_()
            shaped = inner * torch.tanh(inner)
        return torch.autograd.grad(shaped, inner, upstream)[0]
"""

TWO_PASSES = """\
    first.backward(retain_graph=True)
    second.backward()
"""
ONE_PASS = """\
    (first + second).backward()
"""


def program(methods: str, passes: str, imports: str = "", base: str = "torch.autograd.Function"):
    return (
        "import torch\n"
        f"{imports}\n\n"
        f"class Shaper({base}):\n"
        f"{textwrap.indent(methods, '')}\n\n"
        "torch.manual_seed(0)\n"
        "lin = torch.nn.Linear(4, 3)\n"
        "sgd = torch.optim.SGD(lin.parameters(), lr=0.1)\n"
        "for _ in range(2):\n"
        "    out = Shaper.apply(lin(torch.randn(5, 4)))\n"
        "    first = out.pow(2).mean()\n"
        "    second = out.abs().mean()\n"
        "    sgd.zero_grad()\n"
        f"{passes}"
        "    sgd.step()\n"
    )


PROGRAMS = {
    "inner graph, two passes": program(
        FORWARD_KEEPS_INNER_GRAPH.format(inner_retain=""), TWO_PASSES
    ),
    "inner graph, imported base": program(
        FORWARD_KEEPS_INNER_GRAPH.format(inner_retain=""),
        TWO_PASSES,
        imports="from torch.autograd import Function as Base",
        base="Base",
    ),
    "inner graph retained, two passes": program(
        FORWARD_KEEPS_INNER_GRAPH.format(inner_retain=", retain_graph=True"), TWO_PASSES
    ),
    "inner graph, one pass": program(FORWARD_KEEPS_INNER_GRAPH.format(inner_retain=""), ONE_PASS),
    "rebuilt in backward, two passes": program(FORWARD_KEEPS_INPUT, TWO_PASSES),
}
RAISES = {"inner graph, two passes", "inner graph, imported base"}


@pytest.fixture(scope="module")
def torch_outcomes(tmp_path_factory, torch_python) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("custom_functions")
    (folder / "programs.json").write_text(json.dumps(PROGRAMS), encoding="utf-8")
    runner = (
        "import json, sys\n"
        "out = {}\n"
        "for name, text in json.load(open(sys.argv[1])).items():\n"
        "    try:\n"
        "        exec(compile(text, name, 'exec'), {'__name__': '__main__'})\n"
        "        out[name] = 'ran'\n"
        "    except RuntimeError as exc:\n"
        "        out[name] = str(exc)\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [torch_python, "-c", runner, str(folder / "programs.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def line_of(text: str, code: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if code in line)


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_analysis_agrees_with_torch(name, torch_outcomes):
    text = PROGRAMS[name]
    found = [f for f in analyze(text, "program.py") if f.code in ("AG001", "AG002", "AG007")]
    if name not in RAISES:
        assert torch_outcomes[name] == "ran"
        assert found == []
        return
    assert FREED in torch_outcomes[name]
    (finding,) = found
    # The finding sits on the user's second backward, which raises; its evidence goes
    # into the Function's backward, where the inner graph is freed and met again.
    assert finding.code == "AG002"
    assert finding.span.start.line == line_of(text, "second.backward()")
    inner = line_of(text, "torch.autograd.grad(")
    fails = [s.span.start.line for s in finding.evidence if s.role.name == "FAILS"]
    freed = [s.span.start.line for s in finding.evidence if s.role.name == "FREED"]
    assert fails == [inner] and freed == [inner]
    notes = [s for s in finding.evidence if s.role.name == "NOTE"]
    assert any("Shaper.backward" in s.message for s in notes)


def test_a_class_named_function_that_is_not_torchs_is_not_run_as_one():
    """A base spelled `Function` that the imports do not make torch's: forward and
    backward are plain methods nobody calls, so nothing is claimed."""
    text = program(
        FORWARD_KEEPS_INNER_GRAPH.format(inner_retain=""),
        TWO_PASSES,
        imports="from sympy import Function",
        base="Function",
    )
    found = [f for f in analyze(text, "program.py") if f.code in ("AG001", "AG002")]
    assert found == []

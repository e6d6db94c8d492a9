"""Library code that back-propagates for the user, or reuses a graph it kept: the fit loop
over what an object holds (analysis/library_fits.py, botorch's `fit_gpytorch_mll`), and
the cache an approximate GP keeps in eval mode (analysis/library_eval_caches.py).

Every program is analysed and run with the real libraries: the AG001/AG002 the analysis
reports is exactly where torch raises "backward through the graph a second time", and a
program it leaves clean runs to its end.
"""

from __future__ import annotations

import subprocess
import textwrap

import pytest
from autograd_lint.analysis import analyze

FREED = "backward through the graph a second time"

GP_CLASS = """
import gpytorch
import torch


class Regressor(gpytorch.models.ApproximateGP):
    def __init__(self, anchors):
        posterior = gpytorch.variational.CholeskyVariationalDistribution(anchors.size(0))
        strategy = gpytorch.variational.VariationalStrategy(
            self, anchors, posterior, learn_inducing_locations=False
        )
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.RBFKernel()

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


torch.manual_seed(1)
model = Regressor(torch.rand(5, 2))
"""

QUERY = "model(torch.rand(3, 2, requires_grad=True)).mean.sum().backward()"

EVAL_PROGRAMS = {
    "two queries in eval mode": (f"model.eval()\n{QUERY}\n{QUERY}\n", 2),
    "eval() again keeps the cache": (f"model.eval()\n{QUERY}\nmodel.eval()\n{QUERY}\n", 2),
    "eval(False) is train()": (f"model.eval()\n{QUERY}\nmodel.train(False)\n{QUERY}\n", 2),
    "training mode keeps nothing": (f"model.train()\n{QUERY}\n{QUERY}\n", None),
    "train() between clears it": (
        f"model.eval()\n{QUERY}\nmodel.train()\nmodel.eval()\n{QUERY}\n",
        None,
    ),
    "a cache first filled without grad": (
        f"model.eval()\nwith torch.no_grad():\n    model(torch.rand(3, 2))\n{QUERY}\n{QUERY}\n",
        None,
    ),
    "in a loop of queries": (f"model.eval()\nfor _ in range(3):\n    {QUERY}\n", 1),
}

FIT_HEADER = """
import torch
from botorch import fit_gpytorch_mll
from botorch.models import ModelListGP, SingleTaskGP
from gpytorch.mlls import SumMarginalLogLikelihood

torch.manual_seed(2)
points = torch.rand(10, 2, dtype=torch.float64, requires_grad=True)
first = torch.sin(3.0 * points).sum(dim=-1, keepdim=True)
second = (points ** 2).sum(dim=-1, keepdim=True)
"""

FIT_PROGRAMS = {
    "a model list over targets with history": (
        "both = ModelListGP(SingleTaskGP(points, first), SingleTaskGP(points, second))\n"
        "fit_gpytorch_mll(SumMarginalLogLikelihood(both.likelihood, both))\n",
        True,
    ),
    "one model's targets detached, the other's not": (
        "both = ModelListGP(SingleTaskGP(points.detach(), first.detach()),\n"
        "                   SingleTaskGP(points.detach(), second))\n"
        "fit_gpytorch_mll(SumMarginalLogLikelihood(both.likelihood, both))\n",
        True,
    ),
    "every target detached": (
        "both = ModelListGP(SingleTaskGP(points.detach(), first.detach()),\n"
        "                   SingleTaskGP(points.detach(), second.detach()))\n"
        "fit_gpytorch_mll(SumMarginalLogLikelihood(both.likelihood, both))\n",
        False,
    ),
}


def run(source: str, python: str) -> tuple[int | None, str]:
    """(the program's line that raised the freed-graph error, or None; stderr), run by
    `python` (the suite's warm interpreter, torch already imported)."""
    done = subprocess.run([python, "-c", source], capture_output=True, text=True, timeout=300)
    if done.returncode == 0:
        return None, ""
    assert FREED in done.stderr, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if 'File "<string>", line ' in line]
    return int(lines[-1].split("line ")[1].split(",")[0]), done.stderr


def errors(source: str) -> dict[int, str]:
    found = analyze(textwrap.dedent(source), "program.py")
    return {f.span.start.line: f.code for f in found if f.code in ("AG001", "AG002", "AG007")}


@pytest.mark.parametrize("name", list(EVAL_PROGRAMS))
def test_an_eval_mode_cache_is_reported_where_torch_raises(name, torch_python):
    body, failing_query = EVAL_PROGRAMS[name]
    source = GP_CLASS + body
    lines = source.splitlines()
    queries = [n for n, line in enumerate(lines, 1) if line.strip() == QUERY]
    raised, _ = run(source, torch_python)
    reported = errors(source)
    if failing_query is None:
        assert raised is None and not reported
    else:
        assert raised == queries[failing_query - 1]
        # Inside the loop (indented) the cache comes from an earlier iteration: AG001; a
        # second query in straight-line code reaches the first one's graph: AG002.
        code = "AG001" if lines[raised - 1].startswith(" ") else "AG002"
        assert reported == {raised: code}


def test_the_eval_cache_finding_points_into_gpytorch():
    source = GP_CLASS + EVAL_PROGRAMS["two queries in eval mode"][0]
    (finding,) = [f for f in analyze(source, "program.py") if f.code == "AG002"]
    inside = [s for s in finding.evidence if s.path and "gpytorch" in s.path]
    assert inside and inside[0].path.endswith("variational/variational_strategy.py")
    assert "eval mode" in inside[0].message


@pytest.mark.parametrize("name", list(FIT_PROGRAMS))
def test_a_fit_loop_over_held_targets_is_reported_where_torch_raises(name, torch_python):
    body, fails = FIT_PROGRAMS[name]
    source = FIT_HEADER + body
    raised, _ = run(source, torch_python)
    reported = errors(source)
    fit_line = next(
        n for n, line in enumerate(source.splitlines(), 1) if line.startswith("fit_gpytorch")
    )
    if fails:
        assert raised == fit_line and reported == {fit_line: "AG001"}
    else:
        assert raised is None and not reported


def test_the_fit_finding_points_into_botorch():
    source = FIT_HEADER + FIT_PROGRAMS["a model list over targets with history"][0]
    (finding,) = [f for f in analyze(source, "program.py") if f.code == "AG001"]
    inside = [s for s in finding.evidence if s.path and "botorch" in s.path]
    assert inside and inside[0].path.endswith("botorch/optim/closures/core.py")
    assert "fit_gpytorch_mll" in inside[0].message


def test_the_fit_finding_says_in_words_what_the_model_holds():
    # The graphs a library object holds have no one name to quote: the evidence says whose
    # they are and the attributes its constructor keeps them in, each quoted as code.
    source = FIT_HEADER + FIT_PROGRAMS["one model's targets detached, the other's not"][0]
    (finding,) = [f for f in analyze(source, "program.py") if f.code == "AG001"]
    held = "what the `SingleTaskGP` holds in "
    assert held in finding.message, finding.message
    (stored,) = [s for s in finding.evidence if s.message.startswith(held)]
    assert "`train_targets`" in stored.message
    assert stored.message.endswith("keeps the graph on the object between calls")
    assert stored.name is None  # no name in the source: nothing for a fix to detach
    # At the SingleTaskGP(...) given `second`, the target with history.
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "second))" in text)
    assert (stored.span.start.line, stored.span.start.column) == (line, 19)

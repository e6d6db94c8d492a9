"""Tests for the mutants issue 19's fifth session answered (docs/mutation.md): the roles
survivor the fourth left open, and the survivors of the fifth sample (the modules added since
the fourth), drawn at ddca906.

Each test names the mutant it kills (`module.function` and mutmut's number at its commit)
and says what the mutant broke. Every program is run with torch (the warm interpreter of
tests/conftest.py) and its outcome is the label.
"""

from __future__ import annotations

import pytest
from autograd_lint.analysis import analyze, library_models
from autograd_lint.analysis.library_fits import cited_site
from test_mutants import codes_and_lines
from torch_labels import FREED_ERROR, IN_PLACE_ERROR, assert_behaves_as_labelled, run_torch

# roles.ScopeEvidence._use 58 (`"STEP(CLOSURE)"`, mutmut's number at 8131204): `x.step(f)`
# alone no longer made `x` an optimizer. A snippet's `updater`, known only by that call, then
# stayed an unknown object, whose `step(closure)` the interpreter does not run: the closure's
# backward through the state it carries from the last step went unseen (AG001 lost). An
# optimizer's `step(closure)` runs the closure once per call, as torch's SGD does.
CLOSURE_CARRIES_STATE = """import torch

hidden = torch.zeros(1, 4)
for x in torch.randn(3, 1, 4):

    def closure():
        global hidden
        hidden = cell(x, hidden)
        loss = hidden.pow(2).sum()
        loss.backward()
        return loss

    updater.step(closure)
"""
# What the snippet's free names are when it runs: a recurrent cell and an SGD over it.
SNIPPET_GLOBALS = """import torch

torch.manual_seed(0)
cell = torch.nn.RNNCell(4, 4)
updater = torch.optim.SGD(cell.parameters(), lr=0.1)
"""


def test_an_object_known_only_by_step_of_a_closure_runs_the_closure():
    assert codes_and_lines(analyze(CLOSURE_CARRIES_STATE, "f.py")) == [("AG001", 10)]


# reparametrized.ReparametrizedMixin.note_reparametrized_saves 2 (the note's key None, at
# ddca906): a library note's key is what keeps one evidence step per library line in a
# finding. With every reparametrized layer's note under one key, a graph through a
# spectral-normed layer and a weight-normed one, back-propagated twice, cited only the first
# layer's line of torch's source; each recomputes its weight by its own line.
TWO_REPARAMETRIZED_LAYERS = """import torch

torch.manual_seed(0)
first = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4))
second = torch.nn.utils.weight_norm(torch.nn.Linear(4, 2))
value = second(first(torch.randn(6, 3))).pow(2).mean()
value.backward()
value.backward()
"""


def test_each_reparametrized_layer_of_a_freed_graph_cites_its_own_line_of_torch():
    (finding,) = analyze(TWO_REPARAMETRIZED_LAYERS, "f.py")
    assert (finding.code, finding.span.start.line) == ("AG002", 8)
    cited = [(step.path, step.span.start.line) for step in finding.evidence if step.path]
    rows = [library_models.lookup(f"torch.nn.utils.{n}") for n in ("spectral_norm", "weight_norm")]
    sites = [cited_site(row) for row in rows]
    assert cited == [(site.block.path, site.node.lineno) for site in sites]


# added_modules.AddedModuleMixin.add_module_part 13 (`dict(zip(args[...]))`, at ddca906): the
# keyword arguments' names were dropped, so `add_module("probe", module=probe)` raised in the
# analysis, and the module-level code's AG001 (the added module's target, back-propagated by
# each of L-BFGS's calls of the closure: tests/corpus/added_module_target_kept_with_graph.py,
# its module passed by keyword) was lost.
ADDED_BY_KEYWORD = """import torch
import torch.nn.functional as F
from torch import nn


class Probe(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target

    def forward(self, x):
        self.loss = F.mse_loss(x, self.target)
        return x


torch.manual_seed(0)
features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
probe = Probe(features(torch.rand(1, 3, 8, 8)))
model = nn.Sequential()
model.add_module("features", features)
model.add_module("probe", module=probe)
image = torch.rand(1, 3, 8, 8, requires_grad=True)
lbfgs = torch.optim.LBFGS([image], max_iter=4)


def closure():
    lbfgs.zero_grad()
    model(image)
    probe.loss.backward()
    return probe.loss


lbfgs.step(closure)
"""


def test_a_module_added_by_keyword_is_run_by_its_container():
    assert codes_and_lines(analyze(ADDED_BY_KEYWORD, "f.py")) == [("AG001", 29)]


# library_eval_caches.evaluation_row 20 (`id(local) in seen`, at ddca906): the file's own base
# classes were no longer followed to the library class whose eval-mode cache the row
# describes, so a GP one local class below gpytorch's ApproximateGP kept no cache: the second
# query's AG002 (torch raises there: the first backward freed the cached terms) was lost.
GP_BELOW_A_LOCAL_BASE = """import gpytorch
import torch


class Approximate(gpytorch.models.ApproximateGP):
    pass


class Regressor(Approximate):
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
model.eval()
model(torch.rand(3, 2, requires_grad=True)).mean.sum().backward()
model(torch.rand(3, 2, requires_grad=True)).mean.sum().backward()
"""


def test_an_eval_cache_is_kept_by_a_gp_below_a_base_class_of_the_file():
    assert codes_and_lines(analyze(GP_BELOW_A_LOCAL_BASE, "f.py")) == [("AG002", 27)]


# reparametrized.ReparametrizedMixin.note_reparametrized 12 (`module_key(None, ...)`, at
# ddca906): the layer was keyed by its value alone, so a layer known by its path only (a
# function's parameter) was never marked; its weight recomputed by spectral_norm, stepped
# between two backwards through one retained graph, went unreported (AG007 lost).
REPARAMETRIZED_PARAMETER = """import torch


def train(layer, batch):
    layer = torch.nn.utils.spectral_norm(layer)
    sgd = torch.optim.SGD(layer.parameters(), lr=0.01)
    value = layer(batch).pow(2).mean()
    sgd.zero_grad()
    value.backward(retain_graph=True)
    sgd.step()
    value.backward()
"""
DRIVE_THE_TRAINING = """

torch.manual_seed(0)
train(torch.nn.Linear(3, 4), torch.randn(6, 3))
"""


def test_a_layer_passed_in_and_reparametrized_is_followed():
    assert codes_and_lines(analyze(REPARAMETRIZED_PARAMETER, "f.py")) == [("AG007", 10)]


# reparametrized.ReparametrizedMixin.note_reparametrized 19 (the heap entry None, at ddca906):
# the mark is a heap entry like any other, and the report reads every heap entry's site when
# it names what carries a graph across iterations; a carried state through a spectral-normed
# layer then crashed the report (AG001 lost).
CARRIED_THROUGH_A_REPARAMETRIZED_LAYER = """import torch

torch.manual_seed(0)
box = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 4))
hidden = torch.zeros(2, 4)
for x in torch.randn(3, 2, 4):
    hidden = box(x) + hidden.tanh()
    hidden.sum().backward()
"""


def test_state_carried_through_a_reparametrized_layer():
    found = analyze(CARRIED_THROUGH_A_REPARAMETRIZED_LAYER, "f.py")
    assert codes_and_lines(found) == [("AG001", 8)]


# custom_functions.CustomFunctionMixin.run_custom_backwards 13 (`+o.seq`, at ddca906): the
# backwards of the file's Functions reached by one pass ran earliest first. torch's engine
# starts from the root, so the application nearest the loss runs its backward first, and
# that is the one a second pass meets freed (the torch test below shows it). With the
# mutant the AG002's note named the inner application (line 20), not `twice` (line 21).
TWO_APPLICATIONS = """import torch


class Shaped(torch.autograd.Function):
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
        return torch.autograd.grad(shaped, inner, upstream)[0]


x = torch.randn(4, requires_grad=True)
once = Shaped.apply(x)
twice = Shaped.apply(once)
loss = twice.sum()
loss.backward(retain_graph=True)
loss.backward()
"""


def test_the_second_pass_meets_the_application_nearest_the_loss_first():
    (finding,) = analyze(TWO_APPLICATIONS, "f.py")
    assert (finding.code, finding.span.start.line) == ("AG002", 24)
    notes = [s.span.start.line for s in finding.evidence if s.role.name == "NOTE"]
    assert notes == [21]


def test_torch_runs_the_outer_applications_backward_first(torch_python, tmp_path):
    """Each backward prints whether its upstream gradient is the loss's own (all ones: the
    node next to `sum()`); the last one printed before the error is the one that raised."""
    marked = TWO_APPLICATIONS.replace(
        "        shaped, inner = ctx.saved_tensors\n",
        "        shaped, inner = ctx.saved_tensors\n        print(bool((upstream == 1).all()))\n",
    )
    result = run_torch(torch_python, marked, tmp_path)
    assert FREED_ERROR in result.stderr
    # First pass: the outer node (True), then the inner (False); second pass: the outer.
    assert result.stdout.split() == ["True", "False", "True"]


def shifted(label_line: int, prelude: str) -> int:
    return label_line + prelude.count("\n")


UNDER_TORCH = {
    "closure carries state": (
        SNIPPET_GLOBALS + CLOSURE_CARRIES_STATE,
        (FREED_ERROR, shifted(10, SNIPPET_GLOBALS)),
    ),
    "two reparametrized layers": (TWO_REPARAMETRIZED_LAYERS, (FREED_ERROR, 8)),
    "added by keyword": (ADDED_BY_KEYWORD, (FREED_ERROR, 29)),
    "gp below a local base": (GP_BELOW_A_LOCAL_BASE, (FREED_ERROR, 27)),
    "reparametrized parameter": (
        REPARAMETRIZED_PARAMETER + DRIVE_THE_TRAINING,
        (IN_PLACE_ERROR, 11),
    ),
    "two applications": (TWO_APPLICATIONS, (FREED_ERROR, 16)),
    "carried through a reparametrized layer": (
        CARRIED_THROUGH_A_REPARAMETRIZED_LAYER,
        (FREED_ERROR, 8),
    ),
}


@pytest.mark.parametrize("name", sorted(UNDER_TORCH))
def test_programs_behave_as_labelled_under_torch(name, torch_python, tmp_path):
    source, label = UNDER_TORCH[name]
    assert_behaves_as_labelled(torch_python, source, label, tmp_path)

"""Library models as data (analysis/library_models/), every row checked against the library.

The tests iterate the table itself: each row must name real objects of the installed
library (target and aliases the same object, the installed version inside the row's
range), and a check registered for its target must confirm every effect the row lists,
reading the row's own parameters (the closure's name, the attributes kept, the resets),
with torch as the ground truth: a claim that a state carries a graph is shown by the
second backward raising, a reset by the loop running cleanly. A row without a check, or
a check that confirms other effects than the row lists, fails.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import inspect
import json
import re
import subprocess
from collections.abc import Callable

import pytest
import torch
from autograd_lint.analysis import library_models
from autograd_lint.analysis.library_models import ModelError, Row, parse, version_in_range
from warm_python import WarmPython

FREED = "backward through the graph a second time"
ROWS = library_models.rows()
CHECKS: dict[str, Callable[[Row], set[str]]] = {}


def check(*targets: str):
    def register(function):
        for target in targets:
            CHECKS[target] = function
        return function

    return register


def resolve(dotted: str):
    """The object a qualified name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        if cut == len(parts) > 1:
            # A package attribute that shadows its submodule (`torch.nn.utils.spectral_norm`
            # is the function): what `package.name` gives the user's code.
            found = getattr(importlib.import_module(".".join(parts[:-1])), parts[-1], found)
        return found
    raise ModuleNotFoundError(dotted)


def raises_freed(step: Callable[[], None], times: int = 2) -> bool:
    try:
        for _ in range(times):
            step()
    except RuntimeError as exc:
        assert FREED in str(exc)
        return True
    return False


# -- the table as a whole ----------------------------------------------------------------------


def test_every_row_has_a_check_and_every_check_a_row():
    assert {row.target for row in ROWS} == set(CHECKS)


def test_every_name_is_one_row():
    names = [name for row in ROWS for name in row.names]
    assert len(names) == len(set(names))


def same(one, other) -> bool:
    """The same object; for a classmethod, the same function (each access binds anew)."""
    return getattr(one, "__func__", one) is getattr(other, "__func__", other)


def installed(library: str) -> bool:
    try:
        importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


# A library that cannot be installed beside torch 2.13 (composer up to 0.8.0 needs torch<2):
# its row cites the file and line at a tagged version, and its check runs that code,
# rebuilt on torch.
CITATION = re.compile(r"[\w/]+\.py:\d+ at v\d+(\.\d+)+")


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.target)
def test_the_row_names_the_installed_librarys_objects(row):
    if not installed(row.library):
        assert CITATION.search(row.source), row.source
        return
    target = resolve(row.target)
    for alias in row.aliases:
        assert same(resolve(alias), target), alias
    assert row.holds_for(importlib.metadata.version(row.library))


CHECKS_STATE: dict = {}  # what checks share (a saved checkpoint), set by the test's fixture


class LibraryPythons:
    """Stand-ins for `sys.executable` (tests/runtime/warm_python.py) whose runs start with
    torch and a library already imported: `pythons("deepxde")` is the shim of a server that
    imported deepxde, started on first use and kept for the module. A fresh interpreter
    spends seconds importing each library before a program's first line."""

    # What a program of this file sets before it imports the library (DEEPXDE_FIT).
    ENV = {"DDE_BACKEND": "pytorch"}

    def __init__(self):
        self._servers = contextlib.ExitStack()
        self._shims: dict[tuple[str, ...], str] = {}

    def __call__(self, *modules: str) -> str:
        if modules not in self._shims:
            warm = self._servers.enter_context(WarmPython(preload=modules, env=self.ENV))
            self._shims[modules] = str(warm.shim)
        return self._shims[modules]

    def close(self) -> None:
        self._servers.close()


@pytest.fixture(scope="module")
def library_pythons():
    pythons = LibraryPythons()
    yield pythons
    pythons.close()


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.target)
def test_the_library_does_what_the_row_says(row, saved_bert, library_pythons):
    CHECKS_STATE["bert"] = saved_bert
    CHECKS_STATE["pythons"] = library_pythons  # warm interpreters, for programs
    assert CHECKS[row.target](row) == {effect.kind for effect in row.effects}


# -- torch -------------------------------------------------------------------------------------


@check("torch.optim.LBFGS.step")
def lbfgs_calls_its_closure_repeatedly(row):
    effect = row.effect("calls-argument")
    assert effect["times"] == "repeatedly"
    weight = torch.tensor([3.0, -2.0], requires_grad=True)
    optimizer = torch.optim.LBFGS([weight], max_iter=6)
    calls = []

    def closure():
        calls.append(1)
        optimizer.zero_grad()
        loss = ((weight - 1) ** 2).sum()
        loss.backward()
        return loss

    optimizer.step(**{effect["argument"]: closure})
    assert 1 < len(calls) <= optimizer.defaults[effect["bound"]]
    calls.clear()
    with torch.no_grad():
        weight.copy_(torch.tensor([3.0, -2.0]))  # away from the minimum again
    positional = [None] * (effect["position"] + 1)
    positional[effect["position"]] = closure
    optimizer = torch.optim.LBFGS([weight], max_iter=6)
    optimizer.step(*positional)
    assert len(calls) > 1

    # Ground truth of the posted crash: the forward computed outside the closure.
    def stale_closure():
        optimizer.zero_grad()
        outside.backward()
        return outside

    with torch.no_grad():
        weight.copy_(torch.tensor([3.0, -2.0]))
    outside = ((weight - 1) ** 2).sum()
    with pytest.raises(RuntimeError, match=FREED):
        torch.optim.LBFGS([weight], max_iter=6).step(stale_closure)
    return {"calls-argument"}


def history():
    leaf = torch.tensor([0.5, 2.0], requires_grad=True)
    return leaf, torch.sin(leaf)


@check("torch.autograd.Variable")
def variable_returns_a_tensor_without_history(row):
    leaf, carried = history()
    assert carried.grad_fn is not None
    wrapped = resolve(row.target)(carried)
    assert wrapped.grad_fn is None and not wrapped.requires_grad
    assert torch.equal(wrapped, carried.detach())
    return {"result-no-history"}


def clipping_checks(row, clip: Callable) -> set[str]:
    """modifies-grads of the parameters at the row's position, a result without history."""
    model = torch.nn.Linear(4, 2)
    loss = (model(torch.randn(3, 4)) ** 2).sum() * 100
    loss.backward(create_graph=True)  # grads with history: the result must still have none
    before = [p.detach().clone() for p in model.parameters()]
    grads = [p.grad.detach().clone() for p in model.parameters()]
    arguments = [None, 0.5]
    arguments.insert(row.effect("modifies-grads")["position"], model.parameters())
    norm = clip(*[a for a in arguments if a is not None])
    after = torch.cat([p.grad.detach().flatten() for p in model.parameters()])
    assert after.norm() <= 0.5 + 1e-4 < torch.cat([g.flatten() for g in grads]).norm()
    assert all(torch.equal(b, p.detach()) for b, p in zip(before, model.parameters()))
    assert row.effect("result-no-history") is not None
    assert norm.grad_fn is None and not norm.requires_grad
    return {"modifies-grads", "result-no-history"}


@check(
    "torch.nn.utils.spectral_norm",
    "torch.nn.utils.weight_norm",
    "torch.nn.utils.parametrizations.spectral_norm",
    "torch.nn.utils.parametrizations.weight_norm",
)
def reparametrization_saves_the_layers_parameters(row):
    """The layer given comes back, and its output over plain data keeps a parameter an
    optimizer step changes: a second backward after the step raises (a plain one runs)."""
    wrap = resolve(row.target)

    def retained_backward_after_step(make):
        torch.manual_seed(0)
        layer = make(torch.nn.Linear(3, 4))
        sgd = torch.optim.SGD(layer.parameters(), lr=0.01)
        value = layer(torch.randn(6, 3)).pow(2).mean()
        value.backward(retain_graph=True)
        sgd.step()
        value.backward()

    layer = torch.nn.Linear(3, 4)
    assert wrap(layer) is layer
    retained_backward_after_step(lambda plain: plain)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        retained_backward_after_step(wrap)
    return {"result-arguments", "reparametrizes-weight"}


@check("torch.nn.utils.clip_grad_norm_")
def clip_grad_norm_scales_grads(row):
    return clipping_checks(row, resolve(row.target))


# Every distribution with a lazy attribute, and ways to build it from leaves that require
# grad (each constructor leaves a different attribute lazy).
def leaf(*values):
    return torch.tensor(values, requires_grad=True)


def matrix():
    """Symmetric positive definite: a covariance or a precision."""
    return torch.tensor([[2.0, 0.3], [0.3, 1.5]], requires_grad=True)


def lower():
    """Lower triangular with a positive diagonal: a Cholesky factor."""
    return torch.tensor([[2.0, 0.0], [0.3, 1.5]], requires_grad=True)


D = torch.distributions
CONSTRUCTORS = {
    "torch.distributions.Bernoulli": [lambda: D.Bernoulli(probs=leaf(0.3, 0.6)), lambda: D.Bernoulli(logits=leaf(0.3, -1.0))],
    "torch.distributions.Binomial": [lambda: D.Binomial(5, probs=leaf(0.3)), lambda: D.Binomial(5, logits=leaf(0.2))],
    "torch.distributions.Categorical": [lambda: D.Categorical(probs=leaf(0.2, 0.8)), lambda: D.Categorical(logits=leaf(0.2, 0.1))],
    "torch.distributions.ContinuousBernoulli": [lambda: D.ContinuousBernoulli(probs=leaf(0.3)), lambda: D.ContinuousBernoulli(logits=leaf(0.3))],
    "torch.distributions.Geometric": [lambda: D.Geometric(probs=leaf(0.3)), lambda: D.Geometric(logits=leaf(0.3))],
    "torch.distributions.NegativeBinomial": [lambda: D.NegativeBinomial(leaf(5.0), probs=leaf(0.3)), lambda: D.NegativeBinomial(leaf(5.0), logits=leaf(0.3))],
    "torch.distributions.MultivariateNormal": [
        lambda: D.MultivariateNormal(leaf(0.0, 1.0), covariance_matrix=matrix()),
        lambda: D.MultivariateNormal(leaf(0.0, 1.0), scale_tril=lower()),
        lambda: D.MultivariateNormal(leaf(0.0, 1.0), precision_matrix=matrix()),
    ],
    "torch.distributions.LowRankMultivariateNormal": [lambda: D.LowRankMultivariateNormal(leaf(0.0, 1.0), leaf([1.0], [0.5]), leaf(1.0, 2.0))],
    "torch.distributions.Wishart": [
        lambda: D.Wishart(leaf(3.0), covariance_matrix=matrix()),
        lambda: D.Wishart(leaf(3.0), scale_tril=lower()),
        lambda: D.Wishart(leaf(3.0), precision_matrix=matrix()),
    ],
    "torch.distributions.VonMises": [lambda: D.VonMises(leaf(0.5), leaf(2.0))],
}  # fmt: skip


def carries_history(value) -> bool:
    if isinstance(value, torch.Tensor):
        return value.grad_fn is not None
    return any(carries_history(v) for v in vars(value).values() if isinstance(v, torch.Tensor))


def lazy_properties(cls) -> set[str]:
    from torch.distributions.utils import lazy_property

    return {k for c in cls.__mro__ for k, v in vars(c).items() if isinstance(v, lazy_property)}


@check(*CONSTRUCTORS)
def distribution_caches_attributes_lazily(row):
    attributes = set(row.effect("caches-lazily")["attributes"])
    assert attributes == lazy_properties(resolve(row.target))  # none left out
    for attribute in attributes:
        shown = False
        for make in CONSTRUCTORS[row.target]:
            distribution = make()
            if attribute in vars(distribution):
                continue  # given to the constructor, not computed
            first = getattr(distribution, attribute)
            assert vars(distribution)[attribute] is first is getattr(distribution, attribute)
            assert carries_history(first)
            shown = True
        assert shown, f"no constructor leaves {attribute} to be computed"
    return {"caches-lazily"}


def test_a_lazily_cached_logits_shared_by_two_backward_passes_raises():
    """The posted shape: Bernoulli(p) built once, log_prob back-propagated per batch."""
    p = leaf(0.3, 0.6)
    built_once = D.Bernoulli(probs=p)
    sample = torch.tensor([1.0, 0.0])
    assert raises_freed(lambda: built_once.log_prob(sample).sum().backward())
    assert not raises_freed(lambda: D.Bernoulli(probs=p).log_prob(sample).sum().backward())


# -- spiking neurons ---------------------------------------------------------------------------


def neuron_constructors():
    import snntorch as snn
    from spikingjelly.activation_based import neuron

    return {
        "snntorch.Leaky": lambda **kw: snn.Leaky(beta=0.9, **kw),
        "snntorch.Lapicque": lambda **kw: snn.Lapicque(beta=0.9, **kw),
        "snntorch.Synaptic": lambda **kw: snn.Synaptic(alpha=0.8, beta=0.9, **kw),
        "snntorch.Alpha": lambda **kw: snn.Alpha(alpha=0.9, beta=0.8, **kw),
        "snntorch.RLeaky": lambda **kw: snn.RLeaky(beta=0.9, linear_features=3, **kw),
        "snntorch.RSynaptic": lambda **kw: snn.RSynaptic(0.8, 0.9, linear_features=3, **kw),
        "spikingjelly.activation_based.neuron.IFNode": lambda: neuron.IFNode(),
        "spikingjelly.activation_based.neuron.LIFNode": lambda: neuron.LIFNode(),
        "spikingjelly.activation_based.neuron.ParametricLIFNode": lambda: (
            neuron.ParametricLIFNode()
        ),
    }


NEURONS = [row.target for row in ROWS if row.library in ("snntorch", "spikingjelly")]


def batches(neuron, attributes, before=None, passed=None) -> bool:
    """Two batches through a linear layer and the neuron, the loss read from the kept
    state; True when the second backward raises (the state carried the first graph)."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 3)

    def step():
        if before is not None:
            before()
        x = layer(torch.rand(2, 3) * 2)
        if passed:
            neuron(x, **{name: torch.zeros(2, 3) for name in passed})
        else:
            neuron(x)
        sum(getattr(neuron, name).sum() for name in attributes).backward()

    return raises_freed(step)


@check(*NEURONS)
def neuron_keeps_state_between_calls(row):
    effect = row.effect("keeps-state")
    attributes = effect["attributes"]
    make = neuron_constructors()[row.target]
    variants = [{"init_hidden": True}, {}] if row.library == "snntorch" else [{}]
    for options in variants:
        neuron = make(**options)
        neuron(torch.nn.Linear(3, 3)(torch.rand(2, 3)))
        assert all(getattr(neuron, name).grad_fn is not None for name in attributes)
        assert batches(make(**options), attributes), f"{options}: the state is not carried"
    if effect.get("unless-arguments"):
        assert not batches(make(), attributes, passed=effect["unless-arguments"])
    for reset in effect["reset-by"]:
        neuron = make(**variants[0])
        if reset.startswith("."):
            before = getattr(neuron, reset[1:])
        else:
            net = torch.nn.Sequential(neuron)
            function = resolve(reset)
            assert function.__module__.split(".")[0] == row.library

            def before(net=net, function=function):
                function(net)

        assert not batches(neuron, attributes, before=before), f"{reset} does not reset"
    return {"keeps-state"}


# -- gpytorch ----------------------------------------------------------------------------------


def gp_model():
    import gpytorch

    class GP(gpytorch.models.ExactGP):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.mean = gpytorch.means.ConstantMean()
            self.covariance = gpytorch.kernels.RBFKernel()

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean(x), self.covariance(x))

    return GP, gpytorch


def stored(value, kept) -> bool:
    return kept is value or (isinstance(kept, tuple) and any(k is value for k in kept))


def names_its_parameter(function, effect) -> bool:
    """The effect's `argument` is the parameter at its `position` (self not counted)."""
    parameters = list(inspect.signature(function).parameters)[1:]
    return parameters[effect["position"]] == effect["argument"]


@check("gpytorch.models.ExactGP")
def exact_gp_keeps_its_training_data(row):
    GP, gpytorch = gp_model()
    inputs = torch.linspace(0, 1, 8).reshape(8, 1)
    weight = torch.tensor(2.0, requires_grad=True)
    targets = torch.sin(inputs.squeeze(-1) * weight)  # targets with history
    given = {"train_inputs": inputs, "train_targets": targets}
    model = GP(**given, likelihood=gpytorch.likelihoods.GaussianLikelihood())
    for effect in (e for e in row.effects if e.kind == "stores-argument"):
        assert names_its_parameter(gpytorch.models.ExactGP.__init__, effect)
        assert stored(given[effect["argument"]], getattr(model, effect["attribute"]))

    def fit(train_targets):
        model = GP(inputs, train_targets, gpytorch.likelihoods.GaussianLikelihood())
        model.train()
        likelihood_loss = gpytorch.mlls.ExactMarginalLogLikelihood(model.likelihood, model)
        return lambda: (-likelihood_loss(model(inputs), model.train_targets)).backward()

    assert raises_freed(fit(targets))  # each iteration back-propagates into the targets
    assert not raises_freed(fit(targets.detach()))
    return {"stores-argument"}


@check("gpytorch.models.ExactGP.set_train_data")
def set_train_data_keeps_the_targets(row):
    GP, gpytorch = gp_model()
    inputs = torch.linspace(0, 1, 8).reshape(8, 1)
    model = GP(inputs, torch.zeros(8), gpytorch.likelihoods.GaussianLikelihood())
    effect = row.effect("stores-argument")
    assert names_its_parameter(gpytorch.models.ExactGP.set_train_data, effect)
    new = torch.sin(torch.ones(8, requires_grad=True))
    model.set_train_data(**{effect["argument"]: new}, strict=False)
    assert getattr(model, effect["attribute"]) is new
    return {"stores-argument"}


@check("gpytorch.models.ApproximateGP")
def approximate_gp_keeps_its_eval_cache(row):
    """In eval mode the strategy memoises the attributes the row names on the first call;
    a second query back-propagated after the first raises, and train() (not a repeated
    eval()) clears them; in training mode nothing is kept."""
    import gpytorch

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
            return gpytorch.distributions.MultivariateNormal(
                self.mean_module(x), self.covar_module(x)
            )

    effect = row.effect("caches-while-evaluating")
    torch.manual_seed(0)
    model = Regressor(torch.rand(5, 2))

    def query():
        model(torch.rand(3, 2, requires_grad=True)).mean.sum().backward()

    def kept() -> set[str]:
        # gpytorch's memoize keys: (name, args, kwargs), or the name (ignore_args=True).
        cache = getattr(model.variational_strategy, "_memoize_cache", {})
        return {key if isinstance(key, str) else key[0] for key in cache}

    model.train()
    assert not raises_freed(query)  # each training-mode call clears the cache first
    model.eval()
    query()
    assert set(effect["attributes"]) <= kept()
    assert raises_freed(query, times=1)  # the second eval-mode query reuses the freed graph
    model.eval()  # already evaluating: nothing cleared
    assert set(effect["attributes"]) <= kept()
    model.train()
    assert not kept()
    model.eval()
    assert not raises_freed(query, times=1)
    assert "psd_safe_cholesky(" in inspect.getsource(
        gpytorch.variational.VariationalStrategy._cholesky_factor
    )
    return {"caches-while-evaluating"}


# -- botorch -----------------------------------------------------------------------------------


@check("botorch.fit.fit_gpytorch_mll")
def fit_gpytorch_mll_backpropagates_what_the_model_holds(row):
    """The fit back-propagates, iteration after iteration, a loss over the training data the
    model keeps: targets with history raise on the second iteration, detached ones do not;
    the cited line is the fit's backward (the closure's `value.backward()`)."""
    from botorch.models import SingleTaskGP
    from botorch.optim.closures.core import ForwardBackwardClosure
    from gpytorch.mlls import ExactMarginalLogLikelihood

    effect = row.effect("backpropagates-held")
    fit = resolve(row.target)
    assert list(inspect.signature(fit).parameters)[effect["position"]] == "mll"
    assert effect["times"] == "repeatedly"
    assert "value.backward()" in inspect.getsource(ForwardBackwardClosure.__call__)
    assert row.source.startswith("botorch/optim/closures/core.py: ForwardBackwardClosure.__call__")

    def fitted(detach: bool) -> bool:
        torch.manual_seed(0)
        points = torch.rand(10, 2, dtype=torch.float64, requires_grad=True)
        observed = torch.cos(3.0 * points).sum(dim=-1, keepdim=True)
        if detach:
            points, observed = points.detach(), observed.detach()
        model = SingleTaskGP(points, observed)
        assert model.train_targets.requires_grad is not detach  # kept as the model's targets
        try:
            fit(ExactMarginalLogLikelihood(model.likelihood, model))
        except RuntimeError as exc:
            assert FREED in str(exc)
            return False
        return True

    assert not fitted(detach=False)
    assert fitted(detach=True)
    return {"backpropagates-held"}


# -- deepxde -----------------------------------------------------------------------------------

DEEPXDE_FIT = """
import os
os.environ["DDE_BACKEND"] = "pytorch"
import deepxde as dde
import numpy as np
import torch

variable = dde.Variable(2.0)
assert variable.requires_grad and variable.grad_fn is None  # a leaf

def residual(x, y):
    return -dde.grad.hessian(y, x) - torch.sin(x)

def values(x):
    return {values}

calls = []
def counted(x):
    calls.append(len(x))
    return values(x)

segment = dde.geometry.Interval(0.0, 1.0)
condition = dde.icbc.{condition}
problem = dde.data.{data}
model = dde.Model(problem, dde.nn.FNN([{inputs}, 6, 1], "tanh", "Glorot uniform"))
model.compile("adam", lr=1e-3, external_trainable_variables=variable)
try:
    model.train(iterations=3, display_every=1)
    print("CLEAN", len(calls))
except RuntimeError as exc:
    print("FREED" if "{freed}" in str(exc) else "OTHER", len(calls))
"""

DEEPXDE_CONDITIONS = {
    "deepxde.icbc.boundary_conditions.DirichletBC": (
        "DirichletBC(segment, counted, lambda _, on: on)",
        "PDE(segment, residual, [condition], num_domain=8, num_boundary=2)",
        "1",
    ),
    "deepxde.icbc.initial_conditions.IC": (
        "IC(space_time, counted, lambda _, on: on)",
        "TimePDE(space_time, lambda x, y: dde.grad.jacobian(y, x, j=1), [condition], "
        "num_domain=8, num_initial=3)",
        "2",
    ),
}


def deepxde_fit(condition: str, values: str) -> tuple[str, int]:
    """Train a tiny model whose one condition's function computes `values`: FREED, CLEAN
    or OTHER, and how many times the library called the function."""
    constructor, data, inputs = DEEPXDE_CONDITIONS[condition]
    source = DEEPXDE_FIT.format(
        values=values, condition=constructor, data=data, inputs=inputs, freed=FREED
    )
    if condition.endswith(".IC"):
        source = source.replace(
            "segment = dde.geometry.Interval(0.0, 1.0)",
            "segment = dde.geometry.Interval(0.0, 1.0)\n"
            "space_time = dde.geometry.GeometryXTime(segment, dde.geometry.TimeDomain(0, 1))",
        )
    python = CHECKS_STATE["pythons"]("deepxde")
    done = subprocess.run([python, "-c", source], capture_output=True, text=True, timeout=300)
    verdict, count = done.stdout.split()[-2:]
    return verdict, int(count)


@check("deepxde.backend.pytorch.tensor.Variable")
def deepxde_variable_is_a_leaf(row):
    # The check runs in DEEPXDE_FIT's program: the assertion there fails it otherwise.
    assert (
        deepxde_fit("deepxde.icbc.boundary_conditions.DirichletBC", "torch.as_tensor(x)")[0]
        == "CLEAN"
    )
    return {"result-leaf"}


@check("deepxde.icbc.boundary_conditions.DirichletBC", "deepxde.icbc.initial_conditions.IC")
def deepxde_condition_keeps_its_function_values(row):
    effect = row.effect("caches-call-of-argument")
    cls = resolve(row.target)
    assert list(inspect.signature(cls.__init__).parameters)[1:][effect["position"]] == "func"
    assert effect["argument"] == "func"
    # Called once, for all three iterations; a value with a saving graph over the variable
    # is back-propagated again in the second; one whose only node is an addition is not.
    scaled = "variable * torch.as_tensor(np.cos(x[:, 0:1]))"
    shifted = "torch.as_tensor(np.cos(x[:, 0:1])) + variable"
    assert deepxde_fit(row.target, scaled) == ("FREED", 1)
    assert deepxde_fit(row.target, shifted) == ("CLEAN", 1)
    return {"caches-call-of-argument"}


@check("deepxde.model.Model.train")
def deepxde_train_backpropagates_every_iteration(row):
    import deepxde

    effect = row.effect("backpropagates-held")
    assert effect["times"] == "repeatedly" and "position" not in effect.parameters
    source = inspect.getsource(deepxde.model.Model._compile_pytorch)
    assert "total_loss.backward()" in source
    # The kept values with a graph raise in the second iteration (above); the same
    # function with a detached variable trains for every iteration.
    detached = "variable.detach() * torch.as_tensor(np.cos(x[:, 0:1]))"
    verdict = deepxde_fit("deepxde.icbc.boundary_conditions.DirichletBC", detached)
    assert verdict == ("CLEAN", 1)
    return {"backpropagates-held"}


# -- lightning ---------------------------------------------------------------------------------

LIGHTNING_FITS = """
import json, torch, {package} as L
from torch.utils.data import DataLoader, TensorDataset

class Regressor(L.LightningModule):
    def __init__(self, backward_itself, automatic):
        super().__init__()
        self.body = torch.nn.Linear(3, 1)
        self.backward_itself = backward_itself
        if not automatic:
            self.{attribute} = False

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.body(x), y)
        if self.backward_itself:
            loss.backward()
            if not self.{attribute}:
                self.optimizers().step()
        return loss

def fit(backward_itself, automatic):
    torch.manual_seed(0)
    model = Regressor(backward_itself, automatic)
    before = model.body.weight.detach().clone()
    trainer = L.Trainer(max_epochs=1, limit_train_batches=2, logger=False,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
        accelerator="cpu")
    data = TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
    try:
        trainer.fit(model, DataLoader(data, batch_size=4))
    except RuntimeError as exc:
        return "raises: " + str(exc)
    return "trained" if not torch.equal(before, model.body.weight) else "unchanged"

print("RESULT " + json.dumps([fit(False, True), fit(True, True), fit(True, False)]))
"""


@check(
    "lightning.pytorch.LightningModule.training_step",
    "pytorch_lightning.LightningModule.training_step",
)
def lightning_backpropagates_the_returned_loss(row):
    attribute = row.effect("backpropagates-return")["unless-attribute"]
    package = row.target.partition(".")[0]
    source = LIGHTNING_FITS.replace("{attribute}", attribute).replace("{package}", package)
    python = CHECKS_STATE["pythons"]("lightning", "pytorch_lightning")
    done = subprocess.run([python, "-c", source], capture_output=True, text=True, timeout=300)
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    returned_only, backward_and_return, switched_off = json.loads(line[len("RESULT ") :])
    assert returned_only == "trained"  # Lightning ran the backward of the returned loss
    assert backward_and_return.startswith("raises") and FREED in backward_and_return
    assert switched_off == "trained"  # with the attribute False, only the user's backward
    return {"backpropagates-return"}


# -- accelerate --------------------------------------------------------------------------------


def accelerator():
    import accelerate

    return accelerate.Accelerator(cpu=True)


@check("accelerate.Accelerator.prepare")
def prepare_returns_its_arguments(row):
    assert row.effect("result-arguments") is not None
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(8, 3))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    prepared = accelerator().prepare(model, optimizer, loader)
    assert len(prepared) == 3
    assert isinstance(prepared[0], torch.nn.Module)
    assert isinstance(prepared[1], torch.optim.Optimizer)
    assert isinstance(prepared[2], torch.utils.data.DataLoader)
    assert isinstance(accelerator().prepare(torch.nn.Linear(3, 1)), torch.nn.Linear)
    return {"result-arguments"}


@check("accelerate.Accelerator.backward")
def accelerator_backward_backpropagates_its_argument(row):
    position = row.effect("backward-of-argument")["position"]
    model = torch.nn.Linear(3, 1)
    loss = torch.sigmoid(model(torch.randn(2, 3))).sum()
    arguments = [loss] if position == 0 else pytest.fail("only position 0 is checked")
    machine = accelerator()
    machine.backward(*arguments)
    assert model.weight.grad is not None
    with pytest.raises(RuntimeError, match=FREED):
        machine.backward(*arguments)
    return {"backward-of-argument"}


@check("accelerate.Accelerator.clip_grad_norm_")
def accelerator_clip_grad_norm_scales_grads(row):
    return clipping_checks(row, accelerator().clip_grad_norm_)


# -- composer (not installed: its trainer loop, rebuilt) -----------------------------------------


@check("composer.models.ComposerModel.loss")
def composer_backpropagates_each_returned_loss(row):
    """composer/trainer/trainer.py at v0.8.0, Trainer._train_microbatch: `outputs =
    model(batch)`, `loss = model.loss(outputs, batch)`, then `for loss in
    ensure_tuple(self.state.loss): loss.backward()`. Rebuilt here: two losses over one
    forward raise on the second; v0.8.1's sum, or one loss, runs."""
    effect = row.effect("backpropagates-return")
    assert effect["each-element"] is True and version_in_range("0.8.0", row.versions)
    assert not version_in_range("0.8.1", row.versions)

    def ensure_tuple(x):
        return tuple(x) if isinstance(x, (tuple, list)) else (x,)

    def microbatch(losses_of, summed: bool) -> None:
        torch.manual_seed(0)
        trunk, head = torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)
        features = torch.tanh(trunk(torch.randn(5, 3)))
        losses = losses_of(head(features), features)
        if summed:
            sum(ensure_tuple(losses)).backward()
        else:
            for loss in ensure_tuple(losses):
                loss.backward()

    def two(out, features):
        return out.pow(2).mean(), features.mean()

    def one(out, features):
        return out.pow(2).mean() + features.mean()

    with pytest.raises(RuntimeError, match=FREED):
        microbatch(two, summed=False)
    microbatch(one, summed=False)
    microbatch(two, summed=True)
    return {"backpropagates-return"}


# -- pretrained models -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved_bert(tmp_path_factory):
    """A tiny BERT saved the way a hub checkpoint is, so loading needs no network."""
    from transformers import BertConfig, BertModel

    folder = tmp_path_factory.mktemp("bert")
    config = BertConfig(
        vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16, is_decoder=True,
    )  # fmt: skip
    BertModel(config).save_pretrained(folder)
    return folder


def loads_a_module(row, load) -> set[str]:
    assert row.effect("result-module") is not None
    model = load()
    assert isinstance(model, torch.nn.Module)
    assert all(p.grad_fn is None and p.is_leaf for p in model.parameters())
    return {"result-module"}


@check("transformers.PreTrainedModel.from_pretrained")
def pretrained_model_loads_a_module(row):
    from transformers import BertModel

    folder = CHECKS_STATE["bert"]
    assert same(BertModel.from_pretrained, resolve(row.target))  # what every model inherits
    return loads_a_module(row, lambda: BertModel.from_pretrained(folder))


@check(
    "transformers.AutoModel.from_pretrained",
    "transformers.AutoModelForCausalLM.from_pretrained",
    "transformers.AutoModelForSequenceClassification.from_pretrained",
)
def auto_model_loads_a_module(row):
    return loads_a_module(row, lambda: resolve(row.target)(CHECKS_STATE["bert"]))


@check("peft.get_peft_model")
def peft_wraps_a_module(row):
    import peft

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 4)

        def forward(self, x):
            return self.layer(x)

    config = peft.LoraConfig(target_modules=["layer"], r=2)
    return loads_a_module(row, lambda: resolve(row.target)(Net(), config))


@check("diffusers.ModelMixin.from_pretrained")
def diffusers_model_loads_a_module(row):
    from diffusers import UNet2DModel

    folder = CHECKS_STATE["bert"] / "unet"
    UNet2DModel(
        sample_size=8, in_channels=1, out_channels=1, layers_per_block=1,
        block_out_channels=(8, 8), norm_num_groups=4,
        down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
    ).save_pretrained(folder)  # fmt: skip
    assert same(UNet2DModel.from_pretrained, resolve(row.target))
    return loads_a_module(row, lambda: UNet2DModel.from_pretrained(folder))


# -- the loader --------------------------------------------------------------------------------

HEADER = 'library = "x"\nversions = ">=1"\n'


@pytest.mark.parametrize(
    "text",
    [
        'library = "x"\n',  # no versions
        HEADER + '[[row]]\ntarget = "x.f"\n',  # no says
        HEADER + '[[row]]\ntarget = "x.f"\nsays = "s"\n',  # no effects
        HEADER
        + '[[row]]\ntarget = "x.f"\nsays = "s"\ncolour = 1\neffects = [{kind = "result-module"}]\n',
        HEADER + '[[row]]\ntarget = "x.f"\nsays = "s"\neffects = [{kind = "does-magic"}]\n',
        HEADER
        + '[[row]]\ntarget = "x.f"\nsays = "s"\neffects = [{kind = "result-module", when = "x"}]\n',
        HEADER
        + '[[row]]\ntarget = "x.f"\nsays = "s"\neffects = [{kind = "modifies-grads", position = "0"}]\n',
        HEADER + '[[row]]\ntarget = "x.f"\nsays = "s"\neffects = [{kind = "modifies-grads"}]\n',
        HEADER
        + '[[row]]\ntarget = "x.f"\nsays = "s"\neffects = [{kind = "calls-argument", times = "often"}]\n',
        HEADER
        + '[[row]]\ntarget = "x.f"\nsays = "s"\nversions = "~=1"\neffects = [{kind = "result-module"}]\n',
        "library = [\n",  # not TOML
    ],
)
def test_a_row_outside_the_vocabulary_does_not_load(text):
    with pytest.raises(ModelError):
        parse(text, "bad.toml")


def test_rows_are_found_by_any_of_their_names_and_by_version():
    (row,) = parse(
        HEADER
        + '[[row]]\ntarget = "x.A.f"\naliases = ["x.core.A.f"]\nsays = "s"\nversions = ">=2,<3"\n'
        + 'effects = [{kind = "calls-argument", argument = "fn", times = "later"}]\n',
        "x.toml",
    )
    table = library_models.Models((row,))
    assert table.lookup("x.core.A.f") is row is table.lookup("x.A.f", "2.5.1+cpu")
    assert table.lookup("x.A.f", "3.0") is None and table.lookup("x.A") is None
    assert table.effects_of_class("x.core.A") == {"f": row}
    assert row.effect("calls-argument")["argument"] == "fn"
    assert library_models.lookup("torch.optim.lbfgs.LBFGS.step").library == "torch"
    assert set(library_models.effects_of_class("gpytorch.models.ExactGP")) == {"", "set_train_data"}


@pytest.mark.parametrize(
    "version, versions, holds",
    [
        ("2.13.0+cpu", ">=2.0,<3", True),
        ("2.13.0", "<2.13", False),
        ("2.13", "==2.13.0", True),
        ("1.0rc1", ">=1.0", True),
        ("0.9.1", ">=0.9,<2", True),
        ("3", ">=2.0,<3", False),
        ("2.1", "!=2.1", False),
        ("7", "*", True),
    ],
)
def test_version_ranges(version, versions, holds):
    assert version_in_range(version, versions) is holds

"""torch.distributions as the rows of library_models/torch.toml describe them, measured.

A distribution keeps graphs the user never sees: `Categorical` normalises its parameter
in `__init__`, and every family with a `lazy_property` computes `logits` or `probs` on
first use and keeps it. So a distribution built once and back-propagated twice raises
although its parameter is a leaf (pytorch/pytorch#11192: `Bernoulli(p)`, two
`log_prob`s; pytorch/pytorch#114417: `Categorical(logits=Parameter)` built before the
training loop). Which methods read which lazy attribute depends on the family and on the
parameter given; the rows list it and the interpreter follows them.

Three kinds of check, all with torch as the ground truth:
- every entry of each row, measured on the installed torch (which lazy attributes each
  method computes, which results carry no history, which constructors build a graph);
- for every family, constructor and pair of methods, the analysis of a two-backward
  program agrees with what running it does (raises or not);
- the posted shapes, rebuilt: the finding, with a step pointing into
  torch/distributions/*.py at the line that keeps the graph; the fixed twins clean.
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
import warnings

import pytest
import torch
from autograd_lint.analysis import library_models
from autograd_lint.checker import check_source
from torch.distributions.utils import lazy_property

FREED = "backward through the graph a second time"
D = torch.distributions

# Each modelled family, built from leaves, once per alternative parameter; the source text
# is what the generated programs write.
CONSTRUCTORS = {
    "Bernoulli": {"probs": "probs=leaf(0.3, 0.6)", "logits": "logits=leaf(0.3, -1.0)"},
    "Binomial": {"probs": "5, probs=leaf(0.3)", "logits": "5, logits=leaf(0.2)"},
    "Categorical": {"probs": "probs=leaf(0.2, 0.8)", "logits": "logits=leaf(0.2, 0.1)"},
    "ContinuousBernoulli": {"probs": "probs=leaf(0.3)", "logits": "logits=leaf(0.3)"},
    "Geometric": {"probs": "probs=leaf(0.3)", "logits": "logits=leaf(0.3)"},
    "NegativeBinomial": {"probs": "leaf(5.0), probs=leaf(0.3)", "logits": "leaf(5.0), logits=leaf(0.3)"},
}  # fmt: skip
# A value each family's log_prob and cdf accept.
VALUES = {
    "Bernoulli": "torch.tensor([1.0, 0.0])",
    "Binomial": "torch.tensor([2.0])",
    "Categorical": "torch.tensor(1)",
    "ContinuousBernoulli": "torch.tensor([0.4])",
    "Geometric": "torch.tensor([2.0])",
    "NegativeBinomial": "torch.tensor([2.0])",
}
METHODS = ("log_prob", "entropy", "perplexity", "cdf", "icdf", "mean", "variance", "stddev",
           "mode", "sample", "rsample", "enumerate_support")  # fmt: skip
MODELLED = [row for row in library_models.rows() if row.target.rpartition(".")[2] in CONSTRUCTORS]


def leaf(*values):
    return torch.tensor(values, requires_grad=True)


def use(name: str, family: str) -> str:
    """The source text of one use of `d`: a method call or a property read."""
    if name in ("log_prob", "cdf"):
        return f"d.{name}({VALUES[family]})"
    if name == "icdf":
        return "d.icdf(torch.tensor([0.5]))"
    if name in ("entropy", "perplexity", "sample", "rsample", "enumerate_support"):
        return f"d.{name}()"
    return f"d.{name}"


def build(family: str, parameter: str):
    return eval(f"D.{family}({CONSTRUCTORS[family][parameter]})")


def run(family: str, parameter: str, name: str):
    """(the distribution, what the use returned), or None where torch does not offer it."""
    d = build(family, parameter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return d, eval(use(name, family), {"d": d, "torch": torch})
        except NotImplementedError:
            return None


def lazy_attributes(family: str) -> set[str]:
    cls = getattr(D, family)
    return {k for c in cls.__mro__ for k, v in vars(c).items() if isinstance(v, lazy_property)}


def effect_of(row):
    return row.effect("caches-lazily")


def raises_freed(step) -> bool:
    try:
        step()
        step()
    except RuntimeError as exc:
        assert FREED in str(exc)
        return True
    return False


# -- every entry of the rows, measured ---------------------------------------------------


def test_every_family_with_constructors_here_has_a_row_the_interpreter_follows():
    assert {row.target.rpartition(".")[2] for row in MODELLED} == set(CONSTRUCTORS)
    for row in MODELLED:
        effect = effect_of(row)
        assert effect.get("reads") is not None and effect.get("parameters") is not None


@pytest.mark.parametrize("row", MODELLED, ids=lambda row: row.target)
def test_the_positional_parameters_are_the_constructors(row):
    signature = inspect.signature(getattr(D, row.target.rpartition(".")[2]).__init__)
    names = [name for name in signature.parameters if name != "self"]
    parameters = list(effect_of(row)["parameters"])
    assert names[: len(parameters)] == parameters
    assert set(CONSTRUCTORS[row.target.rpartition(".")[2]]) <= set(parameters)


@pytest.mark.parametrize("row", MODELLED, ids=lambda row: row.target)
def test_each_method_computes_the_lazy_attributes_the_row_says(row):
    family = row.target.rpartition(".")[2]
    effect = effect_of(row)
    lazy = lazy_attributes(family)
    offered = set()
    for parameter in CONSTRUCTORS[family]:
        for name in METHODS:
            before = build(family, parameter)
            given = set(vars(before)) & lazy
            found = run(family, parameter, name)
            if found is None:
                continue
            offered.add(name)
            d, result = found
            computed = {
                a for a in (set(vars(d)) & lazy) - given if isinstance(vars(d)[a], torch.Tensor)
            }
            assert computed == set(effect["reads"].get(name, ())) - given, (parameter, name)
            # lazy_property computes under enable_grad: what is kept carries the graph.
            assert all(vars(d)[a].requires_grad for a in computed)
            has_history = isinstance(result, torch.Tensor) and result.requires_grad
            assert has_history == (name not in effect["no-history"]), (parameter, name)
    assert set(effect["reads"]) | set(effect["no-history"]) <= offered


@pytest.mark.parametrize("row", MODELLED, ids=lambda row: row.target)
def test_builds_names_the_constructors_that_save_tensors_for_backward(row):
    family = row.target.rpartition(".")[2]
    for parameter in CONSTRUCTORS[family]:
        d = build(family, parameter)
        twice = raises_freed(lambda: getattr(d, parameter).sum().backward())  # noqa: B023
        assert twice == (parameter in effect_of(row)["builds"]), parameter


@pytest.mark.parametrize("row", MODELLED, ids=lambda row: row.target)
def test_every_lazily_computed_attribute_saves_tensors_for_backward(row):
    """What the interpreter assumes of a computed lazy attribute: its own graph keeps
    tensors, so a second backward through it raises, even from fresh parameters."""
    family = row.target.rpartition(".")[2]
    for parameter in CONSTRUCTORS[family]:
        for attribute in set(row.effect("caches-lazily")["attributes"]) - {parameter}:
            d = build(family, parameter)
            for name, value in list(vars(d).items()):  # no graph of the constructor's
                if isinstance(value, torch.Tensor) and value.requires_grad:
                    setattr(d, name, value.detach().clone().requires_grad_(True))
            value = getattr(d, attribute)
            if not isinstance(value, torch.Tensor):
                continue  # NegativeBinomial._gamma: a Gamma, read by sample() only
            assert raises_freed(lambda: getattr(d, attribute).sum().backward()), attribute  # noqa: B023


# -- the analysis agrees with torch, pair by pair -----------------------------------------


PAIRED = ("log_prob", "entropy", "mean", "variance")


def two_backwards(family: str, parameter: str, first: str, second: str) -> str:
    return textwrap.dedent(f"""\
        import torch
        import torch.distributions as D


        def leaf(*values):
            return torch.tensor(values, requires_grad=True)


        d = D.{family}({CONSTRUCTORS[family][parameter]})
        first = {use(first, family)}
        first.sum().backward()
        second = {use(second, family)}
        second.sum().backward()
        """)


def torch_raises(source: str) -> bool | None:
    """True: the second backward raised; None: the program cannot run (no such method,
    or a result without history)."""
    try:
        exec(compile(source, "<two backwards>", "exec"), {})
    except RuntimeError as exc:
        if FREED in str(exc):
            return True
        return None  # e.g. "does not require grad"
    except NotImplementedError:
        return None
    return False


PAIRS = [
    (family, parameter, first, second)
    for family in CONSTRUCTORS
    for parameter in CONSTRUCTORS[family]
    for first in PAIRED
    for second in PAIRED
]


@pytest.mark.parametrize("family, parameter, first, second", PAIRS)
def test_two_backwards_through_one_distribution_are_found_exactly_when_torch_raises(
    family, parameter, first, second
):
    source = two_backwards(family, parameter, first, second)
    raises = torch_raises(source)
    if raises is None:
        return  # nothing to compare: torch offers no such pair
    found = [f for f in check_source(source, "two_backwards.py") if f.code in ("AG001", "AG002")]
    assert bool(found) == raises, source


def test_the_comparison_covers_pairs_that_raise_and_pairs_that_do_not():
    outcomes = {torch_raises(two_backwards(*pair)) for pair in PAIRS}
    assert {True, False} <= outcomes


# -- the posted shapes ------------------------------------------------------------------------


SHARED_LAZY_LOGITS = """\
import torch
from torch.distributions import Bernoulli

p = torch.tensor([0.2, 0.7], requires_grad=True)
coin = Bernoulli(p)
first = 2 * coin.log_prob(torch.tensor([1.0, 0.0])).sum()
second = 3 * coin.log_prob(torch.tensor([0.0, 1.0])).sum()
first.backward()
second.backward()
"""
# The fix: one backward over both losses.
SHARED_LAZY_LOGITS_FIXED = SHARED_LAZY_LOGITS.replace(
    "first.backward()\nsecond.backward()\n", "(first + second).backward()\n"
)

CATEGORICAL_BUILT_BEFORE_THE_LOOP = """\
import torch
from torch.distributions import Categorical

observed = torch.tensor(1)
logits = torch.nn.Parameter(torch.zeros(2))
categorical = Categorical(logits=logits)
optimizer = torch.optim.Adam([logits], lr=10)
for iteration in range(2):
    optimizer.zero_grad()
    loss = -1 * categorical.log_prob(observed)
    loss.backward()
    optimizer.step()
"""
# The fix: the distribution built afresh from the parameter in every iteration.
CATEGORICAL_BUILT_BEFORE_THE_LOOP_FIXED = CATEGORICAL_BUILT_BEFORE_THE_LOOP.replace(
    "categorical = Categorical(logits=logits)\n", ""
).replace(
    "    optimizer.zero_grad()\n",
    "    optimizer.zero_grad()\n    categorical = Categorical(logits=logits)\n",
)

POLICY_BUILT_ONCE = """\
import torch
import torch.distributions as dist

theta = torch.nn.Parameter(torch.tensor([0.3, 0.6]))
policy = dist.Bernoulli(probs=theta)
optimizer = torch.optim.SGD([theta], lr=0.01)
actions = torch.tensor([1.0, 0.0])
for episode in range(3):
    optimizer.zero_grad()
    loss = -policy.log_prob(actions).sum()
    loss.backward()
    optimizer.step()
"""
POLICY_BUILT_ONCE_FIXED = POLICY_BUILT_ONCE.replace(
    "policy = dist.Bernoulli(probs=theta)\n", ""
).replace(
    "    optimizer.zero_grad()\n",
    "    optimizer.zero_grad()\n    policy = dist.Bernoulli(probs=theta)\n",
)
# Given logits, log_prob reads the parameter itself and no lazy attribute: no crash.
POLICY_FROM_LOGITS = POLICY_BUILT_ONCE.replace("probs=theta", "logits=theta")


def raises_when_run(source: str) -> bool:
    try:
        exec(compile(source, "<case>", "exec"), {})
    except RuntimeError as exc:
        assert FREED in str(exc)
        return True
    return False


@pytest.mark.parametrize("source, code, file, line_text", [
    (SHARED_LAZY_LOGITS, "AG002", "bernoulli.py", "def logits"),
    (CATEGORICAL_BUILT_BEFORE_THE_LOOP, "AG001", "categorical.py", "self.logits = logits - logits.logsumexp"),
    (POLICY_BUILT_ONCE, "AG001", "bernoulli.py", "def logits"),
], ids=["bernoulli-two-log-probs", "categorical-before-the-loop", "policy-built-once"])  # fmt: skip
def test_the_posted_shapes_are_found_with_evidence_inside_torch(source, code, file, line_text):
    assert raises_when_run(source)
    findings = [f for f in check_source(source, "case.py") if f.code in ("AG001", "AG002")]
    assert [f.code for f in findings] == [code]
    inside = [step for step in findings[0].evidence if step.path]
    assert len(inside) == 1
    step = inside[0]
    assert step.path.replace("\\", "/").endswith(f"torch/distributions/{file}")
    assert line_text in linecache.getline(step.path, step.span.start.line)
    assert "lazy_property" in step.message or "__init__" in step.message


@pytest.mark.parametrize("source", [
    SHARED_LAZY_LOGITS_FIXED, CATEGORICAL_BUILT_BEFORE_THE_LOOP_FIXED, POLICY_BUILT_ONCE_FIXED,
    POLICY_FROM_LOGITS,
], ids=["one-backward", "categorical-per-iteration", "policy-per-episode", "policy-from-logits"])  # fmt: skip
def test_the_fixed_twins_run_and_are_clean(source):
    assert not raises_when_run(source)
    assert not [f for f in check_source(source, "case.py") if f.code in ("AG001", "AG002")]


def test_a_sample_under_no_grad_still_fills_the_cache_with_a_graph():
    """torch computes a lazy_property under enable_grad: `sample()` inside no_grad keeps a
    `probs` with history, and two entropies through it raise."""
    source = textwrap.dedent("""\
        import torch
        import torch.distributions as D

        logits = torch.tensor([0.3, -1.0], requires_grad=True)
        coin = D.Bernoulli(logits=logits)
        with torch.no_grad():
            draw = coin.sample()
        coin.entropy().sum().backward()
        coin.entropy().sum().backward()
        """)
    assert raises_when_run(source)
    assert [f.code for f in check_source(source, "case.py")] == ["AG002"]

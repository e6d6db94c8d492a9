"""Every row of the vocabulary tables in `analysis/torch_api.py`, checked against torch.

The tests iterate the tables themselves, so a row added later is checked too: a row
naming something torch (or the library it belongs to) does not have fails, and so does
a row whose claim torch contradicts. A row whose call needs arguments gets them from the
recipes below; a new row that needs some and has none fails until it is given them.
"""

from __future__ import annotations

import builtins
import io
import logging
import math
import types
import warnings

import numpy as np
import pytest
import torch
import tqdm
from autograd_lint.analysis import torch_api as api


def graph_tensor() -> torch.Tensor:
    """A float tensor with history (a matmul over a leaf)."""
    weight = torch.randn(4, 3, requires_grad=True)
    return torch.randn(2, 4) @ weight


def has_history(value, depth: int = 0) -> bool:
    """Whether `value`, or anything in it, is a tensor that autograd would walk back from."""
    if isinstance(value, torch.Tensor):
        return value.grad_fn is not None
    if depth > 3:
        return False
    if isinstance(value, dict):
        return any(has_history(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, types.GeneratorType)):
        return any(has_history(v, depth + 1) for v in value)
    return False


def test_the_history_probe_sees_history_where_there_is_some():
    # The checks below are only as good as this probe: it must see a graph when one is there.
    t = graph_tensor()
    assert has_history(t) and has_history([t]) and has_history({"k": (t,)})
    assert has_history(x for x in [t])
    assert not has_history(t.detach()) and not has_history([1.0, "a"])


# -- CUT_METHODS: tensor methods (and a few module / mapping methods) ---------------------------

# nn.Module methods in the table: they hand out modules or detached state, never a graph.
MODULE_METHODS = {"state_dict", "named_modules", "modules", "children"}
# Methods of the mappings a training loop iterates (`batch.keys()`).
MAPPING_METHODS = {"keys"}
SCALAR = 0.0
METHOD_ARGS = {
    **dict.fromkeys(("eq", "ne", "gt", "ge", "lt", "le"), lambda t: (SCALAR,)),
    **dict.fromkeys(("equal", "allclose", "isclose"), lambda t: (t,)),
    # The `new_*` factories take a shape (or data): a fresh tensor, whatever the receiver.
    **dict.fromkeys(("new_zeros", "new_ones", "new_empty"), lambda t: ((2, 3),)),
    "new_full": lambda t: ((2, 3), 1.5),
    "new_tensor": lambda t: ([1.0, 2.0],),
}


def method_receiver(name: str):
    t = graph_tensor()
    if name == "item":
        return t[0, :1]  # a one-element tensor with history
    if name == "bincount":
        return (t.detach() > 0).long().flatten()  # bincount takes non-negative integers
    return t


@pytest.mark.parametrize("name", sorted(api.CUT_METHODS))
def test_cut_method_row_returns_no_history(name):
    if name in MODULE_METHODS:
        model = torch.nn.Sequential(torch.nn.Linear(3, 2))
        model(torch.randn(1, 3)).sum().backward()
        value = getattr(model, name)()
    elif name in MAPPING_METHODS:
        value = getattr({"loss": graph_tensor()}, name)()
        assert all(isinstance(key, str) for key in value)
    else:
        method = getattr(torch.Tensor, name, None)
        assert callable(method), f"CUT_METHODS row {name!r} is not a torch.Tensor method"
        receiver = method_receiver(name)
        args = METHOD_ARGS.get(name, lambda t: ())(receiver)
        if name == "numpy":
            # Refused on a tensor that requires grad: code that runs detached it first.
            with pytest.raises(RuntimeError, match="requires grad"):
                receiver.numpy()
            value = receiver.detach().numpy()
        else:
            value = getattr(receiver, name)(*args)
    assert not has_history(value), name


# -- CUT_ATTRIBUTES -------------------------------------------------------------------------


def attribute_owner(name: str):
    if name == "training":
        return torch.nn.Linear(3, 2)
    if name == "__name__":
        return torch.nn.Linear  # classes and functions have names
    if name == "indices":
        return graph_tensor().topk(1)  # `values, indices`; values keep history, indices don't
    return graph_tensor()


@pytest.mark.parametrize("name", sorted(api.CUT_ATTRIBUTES))
def test_cut_attribute_row_is_plain_data(name):
    owner = attribute_owner(name)
    assert hasattr(owner, name), f"CUT_ATTRIBUTES row {name!r} does not exist on {owner!r}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading .grad of a non-leaf warns
        value = getattr(owner, name)
    assert not has_history(value), name


def test_grad_and_data_stay_plain_data_where_they_are_tensors():
    # The attribute rows above meet .grad as None (a non-leaf's); a leaf's .grad after a
    # backward, and .data, are tensors, and still carry no history.
    leaf = torch.randn(3, requires_grad=True)
    (leaf.tanh() * 2).sum().backward()
    assert isinstance(leaf.grad, torch.Tensor) and not has_history(leaf.grad)
    data = graph_tensor().data
    assert isinstance(data, torch.Tensor) and not has_history(data) and not data.requires_grad


# -- CUT_TORCH_FUNCTIONS: torch.<name>(...) ---------------------------------------------------------

TORCH_FUNCTION_ARGS = {
    **dict.fromkeys(("eq", "ne", "gt", "lt", "ge", "le"), lambda t: (t, SCALAR)),
    **dict.fromkeys(("equal", "allclose", "isclose"), lambda t: (t, t)),
    "no_grad": lambda t: (),
    "manual_seed": lambda t: (0,),
    "randperm": lambda t: (3,),
    "bucketize": lambda t: (t, torch.tensor([0.0])),
    "searchsorted": lambda t: (torch.tensor([0.0, 1.0]), t.contiguous()),
}


@pytest.mark.parametrize("name", sorted(api.CUT_TORCH_FUNCTIONS))
def test_cut_torch_function_row_returns_no_history(name):
    function = getattr(torch, name, None)
    assert callable(function), f"CUT_TORCH_FUNCTIONS row {name!r} is not in torch"
    t = graph_tensor()
    value = function(*TORCH_FUNCTION_ARGS.get(name, lambda t: (t,))(t))
    assert not has_history(value), name


# -- FACTORIES: fresh tensors, history only with a literal requires_grad=True ---------------

SIZE = (2, 3)
FACTORY_ARGS = {
    **dict.fromkeys(("zeros", "ones", "empty", "rand", "randn"), lambda t: (SIZE,)),
    **dict.fromkeys(
        ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"), lambda t: (t,)
    ),  # fmt: skip
    "full": lambda t: (SIZE, 1.5),
    "full_like": lambda t: (t, 1.5),
    "tensor": lambda t: (t,),  # copies the data, not the history (with a warning)
    "from_numpy": lambda t: (np.zeros(3, dtype=np.float32),),
    "arange": lambda t: (3.0,),
    "linspace": lambda t: (0.0, 1.0, 3),
    "logspace": lambda t: (0.0, 1.0, 3),
    "eye": lambda t: (3,),
}
# Factories that take no requires_grad keyword (a NumPy array's memory is shared as is).
NO_REQUIRES_GRAD = {"from_numpy"}


@pytest.mark.parametrize("name", sorted(api.FACTORIES))
def test_factory_row_makes_a_fresh_tensor(name):
    factory = getattr(torch, name, None)
    assert callable(factory), f"FACTORIES row {name!r} is not in torch"
    t = graph_tensor()
    args = FACTORY_ARGS[name](t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.tensor(tensor) warns
        value = factory(*args)
        assert isinstance(value, torch.Tensor) and not has_history(value)
        assert not value.requires_grad  # nothing to back-propagate into either
        if name in NO_REQUIRES_GRAD:
            with pytest.raises(TypeError):
                factory(*args, requires_grad=True)
        else:
            asked = factory(*args, requires_grad=True)
            assert asked.requires_grad and asked.is_leaf  # history starts here, no further


# Calls that look like factories but keep the history of a tensor argument: not rows.
KEEP_HISTORY = {
    "as_tensor": lambda t: torch.as_tensor(t),
    "Tensor": lambda t: torch.Tensor(t),
    "FloatTensor": lambda t: torch.FloatTensor(t),
    "DoubleTensor": lambda t: torch.DoubleTensor(t.double()),
    "normal": lambda t: torch.normal(t, 1.0),
    "asarray": lambda t: torch.asarray(t),  # a CUT_FUNCTIONS row only as NumPy's asarray
    "bernoulli": lambda t: torch.bernoulli(t.sigmoid()),
}


@pytest.mark.parametrize("name", sorted(KEEP_HISTORY))
def test_calls_that_keep_their_arguments_history_are_not_factories(name):
    assert has_history(KEEP_HISTORY[name](graph_tensor()))
    assert name not in api.FACTORIES and name not in api.CUT_TORCH_FUNCTIONS
    if name != "asarray":
        assert name not in api.CUT_FUNCTIONS


# -- CUT_FUNCTIONS: bare-name calls (builtins, and names imported from torch, logging,
# NumPy, tqdm) -----------------------------------------------------------------------------

# Where a bare name comes from, in the order a training script most likely imports it.
SOURCES = (
    ("builtins", builtins),
    ("logging", logging),
    ("torch", torch),
    ("numpy", np),
    ("tqdm", tqdm),
)


def source_of(name: str):
    for label, module in SOURCES:
        if callable(getattr(module, name, None)):
            return label, getattr(module, name)
    return None, None


def scalar() -> torch.Tensor:
    return graph_tensor().sum()


FUNCTION_CALLS = {
    **dict.fromkeys(
        (
            "float",
            "int",
            "bool",
            "str",
            "repr",
            "print",
            "type",
            "id",
            "format",
            "hash",
            "callable",
            "is_tensor",
            "numel",
        ),
        lambda f: f(scalar()),
    ),
    "len": lambda f: f(graph_tensor()),
    "isinstance": lambda f: f(scalar(), torch.Tensor),
    "hasattr": lambda f: f(scalar(), "grad_fn"),
    "range": lambda f: f(len(graph_tensor())),
    "vars": lambda f: f(torch.nn.Linear(2, 2)),
    "open": lambda f: f(__file__, encoding="utf-8"),
    "input": lambda f: f(),  # reads the stdin the test gives it
    **dict.fromkeys(
        ("argmax", "argmin", "argsort", "isnan", "isinf", "isfinite", "nonzero", "count_nonzero"),
        lambda f: f(graph_tensor()),
    ),  # fmt: skip
    **dict.fromkeys(("eq", "ne"), lambda f: f(graph_tensor(), SCALAR)),
    "equal": lambda f: f(graph_tensor(), graph_tensor()),
    "bincount": lambda f: f(torch.tensor([0, 2, 2])),
    "multinomial": lambda f: f(graph_tensor().softmax(-1), 1),
    "bernoulli": lambda f: f(graph_tensor().sigmoid()),
    "randint": lambda f: f(5, SIZE),
    "randint_like": lambda f: f(graph_tensor(), 5),
    "randperm": lambda f: f(4),
    "manual_seed": lambda f: f(0),
    "seed": lambda f: f(),
    "is_grad_enabled": lambda f: f(),
    "device": lambda f: f("cpu"),
    "set_grad_enabled": lambda f: f(True),
    **dict.fromkeys(("no_grad", "inference_mode", "enable_grad"), lambda f: f()),
    "save": lambda f: f(graph_tensor().detach(), io.BytesIO()),
    "load": lambda f: f(saved_tensor(), weights_only=True),
    **dict.fromkeys(("info", "debug", "warning"), lambda f: f("loss %s", scalar())),
    "log": lambda f: f(logging.INFO, "loss %s", scalar()),
    **dict.fromkeys(("array", "asarray"), lambda f: f(graph_tensor().detach())),
    "tqdm": lambda f: f([scalar().detach()], disable=True),
}


def saved_tensor() -> io.BytesIO:
    buffer = io.BytesIO()
    torch.save(graph_tensor(), buffer)  # saved with its data only
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize("name", sorted(api.CUT_FUNCTIONS))
def test_cut_function_row_returns_no_history(name, monkeypatch):
    label, function = source_of(name)
    assert function is not None, (
        f"CUT_FUNCTIONS row {name!r} is no function of {', '.join(s for s, _ in SOURCES)}"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("typed\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = FUNCTION_CALLS[name](function)
    if isinstance(value, io.IOBase):
        value.close()
    if name == "tqdm":
        value = list(value)
    assert not has_history(value), (name, label)


def test_the_bare_log_row_is_logging_not_a_math_function():
    # `log` is a row because loggers' `log(level, msg)` returns nothing; `from torch import
    # log` would be differentiable, which is why the row is resolved to logging first.
    assert source_of("log")[0] == "logging"
    assert has_history(torch.log(scalar().exp()))
    assert math.log(math.e) == 1.0


# -- the tables of modules, optimizers and grad modes ------------------------------------------

# Third-party optimizers named in the table (not in torch.optim): lion-pytorch's Lion.
THIRD_PARTY_OPTIMIZERS = {"Lion"}


@pytest.mark.parametrize("name", sorted(api.OPTIMIZER_CLASSES))
def test_optimizer_class_row_is_an_optimizer(name):
    found = getattr(torch.optim, name, None)
    if name in THIRD_PARTY_OPTIMIZERS:
        assert found is None  # when torch gains it, it is checked like the rest
        return
    assert isinstance(found, type) and issubclass(found, torch.optim.Optimizer), name


@pytest.mark.parametrize("name", sorted(api.DISTRIBUTIONS))
def test_distribution_row_is_a_torch_distribution(name):
    found = getattr(torch.distributions, name, None)
    assert isinstance(found, type) and issubclass(found, torch.distributions.Distribution), name


def plumbing_call(name: str):
    model = torch.nn.Linear(3, 2)
    model(torch.randn(1, 3)).sum().backward()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    calls = {
        "to": lambda: model.to("cpu"),
        "apply": lambda: model.apply(lambda module: None),
        "register_buffer": lambda: model.register_buffer("running", torch.zeros(2)),
        "register_parameter": lambda: model.register_parameter("extra", None),
        "load_state_dict": lambda: model.load_state_dict(model.state_dict()),
        "requires_grad_": lambda: model.requires_grad_(True),
        "add_module": lambda: model.add_module("inner", torch.nn.Tanh()),
        "register_forward_hook": lambda: model.register_forward_hook(lambda *a: None),
        "register_full_backward_hook": lambda: model.register_full_backward_hook(lambda *a: None),
        "step": lambda: optimizer.step(),
        "add_param_group": lambda: optimizer.add_param_group(
            {"params": [torch.zeros(1, requires_grad=True)]}
        ),
    }
    if name in calls:
        return calls[name]()
    owner = model if hasattr(model, name) else optimizer
    return getattr(owner, name)()


@pytest.mark.parametrize("name", sorted(api.MODULE_PLUMBING))
def test_module_plumbing_row_configures_and_hands_out_no_graph(name):
    assert hasattr(torch.nn.Module, name) or hasattr(torch.optim.Optimizer, name), name
    if name == "cuda" and not torch.cuda.is_available():
        return  # the row exists (above); calling it needs a GPU
    assert not has_history(plumbing_call(name)), name


@pytest.mark.parametrize("name", sorted(api.PARAMETER_METHODS))
def test_parameter_method_row_hands_out_leaves(name):
    values = list(getattr(torch.nn.Linear(3, 2), name)())
    tensors = [v[1] if isinstance(v, tuple) else v for v in values]
    assert tensors and all(t.is_leaf and t.requires_grad for t in tensors), name


@pytest.mark.parametrize("name", sorted(api.NO_GRAD_CONTEXTS | api.ENABLE_GRAD_CONTEXTS))
def test_grad_mode_context_row_sets_the_mode(name):
    turns_on = name in api.ENABLE_GRAD_CONTEXTS
    with torch.set_grad_enabled(not turns_on), getattr(torch, name)():
        assert torch.is_grad_enabled() is turns_on, name


# WEIGHT_SAVING_FUNCTIONS and RECURRENT_LAYERS are checked row by row in
# test_stepped_weights.py, beside the analysis that uses them.


NON_SAVING_CALLS = {
    "to": lambda t: t.to(torch.float64),
    "type": lambda t: t.type(torch.float64),
    "view": lambda t: t.view(-1),
    "view_as": lambda t: t.view_as(torch.empty(6)),
    "reshape": lambda t: t.t().reshape(-1),  # not contiguous: reshape copies
    "reshape_as": lambda t: t.reshape_as(torch.empty(3, 2)),
    "flatten": lambda t: t.flatten(),
    "squeeze": lambda t: t.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda t: t.unsqueeze(0),
    "permute": lambda t: t.permute(1, 0),
    "transpose": lambda t: t.transpose(0, 1),
    "expand": lambda t: t[:1].expand(4, 3),
    "expand_as": lambda t: t[:1].expand_as(torch.empty(4, 3)),
}


@pytest.mark.parametrize("name", sorted(api.NON_SAVING_METHODS))
def test_non_saving_method_row_keeps_no_tensor_for_backward(name):
    """A second backward through the op alone (over a leaf) does not fail: its node saved
    no tensor that the first backward could free. (A saving op, `exp`, fails the same way.)"""
    assert hasattr(torch.Tensor, name), name
    if name == "cuda" and not torch.cuda.is_available():
        return  # the row exists (above); moving to a GPU needs one
    call = NON_SAVING_CALLS.get(name, lambda t: getattr(t, name)())
    leaf = torch.randn(2, 3, requires_grad=True)
    result = call(leaf)
    assert result.grad_fn is not None or result is leaf, name
    for _ in range(2):
        result.backward(torch.ones_like(result))
    saving = leaf.exp()
    saving.backward(torch.ones_like(saving))
    with pytest.raises(RuntimeError, match="second time"):
        saving.backward(torch.ones_like(saving))

"""Every row of AG007's table of saved tensors, checked against torch and the checker.

Each case is a small script: an op, an in-place change of one tensor, a backward. The
script is run with torch (does the backward raise "modified by an inplace operation"?)
and analysed (does AG007 flag the in-place line?); both must match what the table says
the op saves. Every spelling the table lists (torch.<op>, F.<op>, x.<op>(), the
operator, the nn module) is exercised, and so are the tensors an op does *not* save.
"""

from __future__ import annotations

import ast

import pytest
import torch
from autograd_lint.analysis import analyze
from autograd_lint.analysis.checks import inplace_table as table

MODIFIED = "modified by an inplace operation"
DIM_OPS = {"softmax", "log_softmax"}
SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@"}
HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"


def is_binary(info: table.OpInfo) -> bool:
    return info.inputs in ("cross", "div") or info.op in ("add", "sub")


def shapes(info: table.OpInfo) -> tuple[str, str]:
    if info.op == "bmm":
        return "(2, 3, 3)", "(2, 3, 3)"
    return "(3, 3)", "(3, 3)"


def expressions(info: table.OpInfo) -> dict[str, str]:
    """Source of `info` applied to `a` (and `b`), for every spelling the table claims."""
    dim = ", dim=-1" if info.op in DIM_OPS else ""
    rest = ", 2" if info.op == "pow" else (", b" if is_binary(info) else "")
    found = {}
    if hasattr(torch, info.op):
        found["torch"] = f"torch.{info.op}(a{rest}{dim})"
    if info.functional:
        found["F"] = f"F.{info.op}(a{rest}{dim})"
    if info.method:
        found["method"] = f"a.{info.op}({(rest + dim).lstrip(', ')})"
    if info.operator is not None:
        found["operator"] = f"a {SYMBOLS[info.operator]} {'2' if info.op == 'pow' else 'b'}"
    if info.module is not None:
        found["module"] = f"nn.{info.module}({dim.lstrip(', ')})(a)"
    return found


def script(info, expression, *, grad_a=True, grad_b=False, modify="result") -> str:
    first, second = shapes(info)
    lines = [f"a = torch.rand({first}{', requires_grad=True' if grad_a else ''}) + 0.5"]
    if is_binary(info):
        lines.append(f"b = torch.rand({second}{', requires_grad=True' if grad_b else ''}) + 0.5")
    lines += [f"result = {expression}", f"{modify}.add_(0.5)", "result.sum().backward()"]
    return HEADER + "\n".join(lines) + "\n"


def run_and_check(source: str) -> tuple[bool, bool]:
    """(torch raised the in-place error, AG007 flagged the in-place line)."""
    try:
        exec(compile(source, "<case>", "exec"), {})  # noqa: S102 - generated from the table
        raised = False
    except RuntimeError as error:
        assert MODIFIED in str(error), error
        raised = True
    modify_line = source.count("\n", 0, source.index(".add_(0.5)")) + 1
    flagged = any(
        f.code == "AG007" and f.span.start.line == modify_line for f in analyze(source, "case.py")
    )
    return raised, flagged


CASES = [
    pytest.param(info, expression, id=f"{info.op}-{spelling}")
    for info in table.OPS
    for spelling, expression in expressions(info).items()
]


def test_every_row_has_a_spelling():
    assert all(expressions(info) for info in table.OPS)


@pytest.mark.parametrize(("info", "expression"), CASES)
def test_result_is_saved_exactly_when_the_table_says(info, expression):
    source = script(info, expression, grad_a=True, grad_b=True, modify="result")
    assert run_and_check(source) == (info.output, info.output), source


@pytest.mark.parametrize(("info", "expression"), CASES)
def test_input_that_requires_grad_is_saved_only_by_self_saving_ops(info, expression):
    # `a` requires grad; `b`, when there is one, is plain data.
    source = script(info, expression, grad_a=True, grad_b=False, modify="a")
    expected = info.inputs == "self"
    assert run_and_check(source) == (expected, expected), source


BINARY = [
    pytest.param(info, expression, id=f"{info.op}-{spelling}")
    for info in table.OPS
    if is_binary(info)
    for spelling, expression in expressions(info).items()
]


@pytest.mark.parametrize(("info", "expression"), BINARY)
def test_binary_operands_are_saved_for_the_other_operands_gradient(info, expression):
    saves = info.inputs in ("cross", "div")
    # Plain data times a tensor that requires grad: the data is saved.
    data_first = script(info, expression, grad_a=False, grad_b=True, modify="a")
    assert run_and_check(data_first) == (saves, saves), data_first
    data_second = script(info, expression, grad_a=True, grad_b=False, modify="b")
    assert run_and_check(data_second) == (saves, saves), data_second
    # A divisor is saved for its own gradient as well.
    divisor = script(info, expression, grad_a=False, grad_b=True, modify="b")
    expected = info.inputs == "div"
    assert run_and_check(divisor) == (expected, expected), divisor


@pytest.mark.parametrize(
    "info",
    [i for i in table.OPS if i.output and hasattr(torch.Tensor, i.op + "_")],
    ids=lambda i: i.op,
)
def test_inplace_variants_of_result_saving_ops_save_the_tensor_itself(info):
    source = HEADER + (
        "a = torch.rand(3, 3, requires_grad=True) + 0.5\n"
        f"result = a.{info.op}_()\n"
        "result.add_(0.5)\n"
        "result.sum().backward()\n"
    )
    assert run_and_check(source) == (True, True), source


VIEW_ARGS = {
    "view": "-1", "view_as": "result", "reshape": "-1", "transpose": "0, 1", "permute": "1, 0",
    "unsqueeze": "0", "expand": "2, 3", "expand_as": "result", "narrow": "0, 0, 1",
    "select": "0, 0", "unflatten": "1, (3, 1)", "as_strided": "(2,), (1,)", "movedim": "0, 1",
    "swapaxes": "0, 1", "unfold": "0, 1, 1",
}  # fmt: skip


@pytest.mark.parametrize("method", sorted(table.VIEW_METHODS))
def test_an_inplace_change_through_a_view_reaches_the_saved_tensor(method):
    view = (
        f"result.{method}"
        if method in ("T", "mT")
        else f"result.{method}({VIEW_ARGS.get(method, '')})"
    )
    source = HEADER + (
        "a = torch.rand(2, 3, requires_grad=True) + 0.5\n"
        "result = torch.exp(a)\n"
        f"part = {view}\n"
        "part.add_(0.5)\n"
        "result.sum().backward()\n"
    )
    assert run_and_check(source) == (True, True), source


@pytest.mark.parametrize("method", sorted(table.NOT_MODIFYING))
def test_not_modifying_methods_leave_the_version_alone(method):
    # retain_grad() is only for non-leaves that require grad.
    tensor = torch.rand(3, requires_grad=True) * 2 if method == "retain_grad" else torch.rand(3)
    before = tensor._version
    getattr(tensor, method)()
    assert tensor._version == before


@pytest.mark.parametrize("name", sorted(table.INPLACE_MODULES))
def test_inplace_modules_modify_their_input(name):
    args = "0.1, 0.0, " if name == "Threshold" else ""
    shape = "(2, 3, 4)" if name == "Dropout1d" else "(2, 3, 4, 4)"
    source = HEADER + (
        f"a = torch.rand({shape}, requires_grad=True) + 0.5\n"
        f"act = nn.{name}({args}inplace=True)\n"
        "result = torch.sigmoid(a)\n"
        "act(result)\n"
        "result.sum().backward()\n"
    )
    try:
        exec(compile(source, "<case>", "exec"), {})  # noqa: S102
        raised = False
    except RuntimeError as error:
        assert MODIFIED in str(error), error
        raised = True
    flagged = any(f.code == "AG007" and f.span.start.line == 7 for f in analyze(source, "c.py"))
    assert (raised, flagged) == (True, True), source


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_a_model_saves_its_weights_for_its_inputs_gradient(input_requires_grad):
    # An optimizer step updates the weights in place: a graph through the model built
    # before the step breaks when its input needed a gradient (one layer: only then).
    source = HEADER + (
        "gen, disc = nn.Linear(2, 2), nn.Linear(2, 1)\n"
        "opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)\n"
        f"x = {'gen(torch.randn(4, 2))' if input_requires_grad else 'torch.randn(4, 2)'}\n"
        "out = disc(x)\n"
        "out.mean().backward(retain_graph=True)\n"
        "opt_d.step()\n"
        "result = out\n"
        "(-result).mean().backward()\n"
    )
    try:
        exec(compile(source, "<case>", "exec"), {})  # noqa: S102
        raised = False
    except RuntimeError as error:
        assert MODIFIED in str(error), error
        raised = True
    step_line = HEADER.count("\n") + 6
    flagged = any(
        f.code == "AG007" and f.span.start.line == step_line for f in analyze(source, "c.py")
    )
    assert (raised, flagged) == (input_requires_grad, input_requires_grad), source

"""Facts read straight off the syntax: grad modes, retain_graph, None tests."""

from __future__ import annotations

import ast

from . import torch_api as api
from .calls import literal_keyword
from .exprs import dotted_name, walk


def has_backward(statements) -> bool:
    return any(_statement_has_backward(statement) for statement in statements)


def _statement_has_backward(statement) -> bool:
    # Loops run each `if` several times: remember the answer on the node.
    found = getattr(statement, "_autograd_lint_backward", None)
    if found is None:
        found = _walk_for_backward(statement)
        statement._autograd_lint_backward = found
    return found


def _walk_for_backward(statement) -> bool:
    for node in walk(statement):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("backward", "manual_backward", "grad")
        ):
            return True
    return False


def none_tests(test: ast.AST) -> tuple[list, list]:
    """Expressions known to be None in the body / in the else branch of `if test:`.

    A value that is None carries no graph; this keeps `if self.h is not None:
    self.h = self.h.detach()` from looking like a path on which `self.h` keeps its graph.
    """
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(test.left, (ast.Name, ast.Attribute))
    ):
        if isinstance(test.ops[0], ast.Is):
            return [test.left], []
        if isinstance(test.ops[0], ast.IsNot):
            return [], [test.left]
    return [], []


def retains_graph(call: ast.Call) -> bool:
    """Whether the call keeps the graph: `retain_graph=True`, or `create_graph=True` alone.

    A non-literal value counts as retaining: we cannot tell, and saying nothing is
    better than a false alarm.
    """
    is_grad = isinstance(call.func, ast.Attribute) and call.func.attr == "grad"
    retain_index, create_index = (3, 4) if is_grad else (1, 2)
    retain = literal_keyword(call, "retain_graph")
    if retain is None and len(call.args) > retain_index:
        arg = call.args[retain_index]
        retain = arg.value if isinstance(arg, ast.Constant) else ...
    create = literal_keyword(call, "create_graph")
    if create is None and len(call.args) > create_index:
        arg = call.args[create_index]
        create = arg.value if isinstance(arg, ast.Constant) else ...
    if retain is None:
        return create is not None and create is not False
    return retain is not False and retain is not None


def grad_mode_of(expr: ast.AST) -> bool | None:
    """The grad mode a `with` item or a decorator sets: False for `torch.no_grad()`,
    `inference_mode()` and `set_grad_enabled(False)`, True for `enable_grad()` and
    `set_grad_enabled(True)`, None when it leaves the mode as it was.

    The mode may be passed by position or as `mode=` (torch takes both), and
    `inference_mode(False)` leaves autograd on. A non-literal mode is unknown: for
    `inference_mode` it counts as off (the name says what the author expects), for
    `set_grad_enabled` as unchanged.
    """
    target = expr.func if isinstance(expr, ast.Call) else expr
    name = api.last_part(dotted_name(target) or "")
    if name in api.ENABLE_GRAD_CONTEXTS:
        return True
    if name not in api.NO_GRAD_CONTEXTS and name != "set_grad_enabled":
        return None
    mode = _mode_argument(expr) if isinstance(expr, ast.Call) else None
    if name == "set_grad_enabled":
        return mode if isinstance(mode, bool) else None
    if name == "inference_mode" and mode is False:
        return None
    return False


def _mode_argument(call: ast.Call):
    """The literal value of the call's first argument or `mode=` keyword; None when there
    is none, `...` when it is not a literal."""
    if call.args:
        first = call.args[0]
        return first.value if isinstance(first, ast.Constant) else ...
    return literal_keyword(call, "mode")

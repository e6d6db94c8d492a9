"""AG003 fixes: keep only the values of what a loop collects or sums for logging.

- a running total (`running_loss += loss`): add `loss.item()` when `loss` is a number
  for sure (it is back-propagated with a bare `.backward()`, which only a one-element
  tensor allows) and the total is only ever used as a number; otherwise `loss.detach()`,
  which keeps the total a tensor for whatever reads it later.
- a collection (`outputs.append(logits)`, `history[k] = loss`, `outputs += [logits]`):
  store `logits.detach()`.

A value spelled as a tuple, list or dict literal, or a starred one, gets no rewrite: which
of its parts are tensors is not known from the syntax.
"""

from __future__ import annotations

import ast

from ..analysis.model import Role
from .carried import _accumulated_term
from .common import is_backward_call
from .context import Candidate, Context
from .infer import walk_scope

_ADDERS = ("append", "appendleft", "add", "put")
_NUMBER_USES = ("print", "float", "str", "round", "int", "format", "abs")


def accumulated_fixes(ctx: Context) -> list[Candidate]:
    steps = ctx.steps(Role.CARRIED)
    if not steps or not steps[-1].name:
        return []
    name = steps[-1].name
    statement = ctx.statement_for(steps[-1].span)
    if statement is None:
        return []
    if ctx.finding.kind == "running-total":
        term = _accumulated_term(statement, name)
        return _running_total(ctx, name, statement, term) if term is not None else []
    value = _collected_value(statement, name)
    if value is None:
        return []
    return _store_detached(ctx, name, value)


def _detachable(value: ast.expr) -> bool:
    return not isinstance(
        value, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.Starred, ast.Constant)
    ) and not isinstance(value, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp))


def _wrapped(ctx: Context, value: ast.expr, method: str) -> str:
    text = ctx.doc.text(value)
    atom = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    return f"{text}.{method}()" if atom else f"({text}).{method}()"


def _collected_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """`E` in `name.append(E)`, `name[k] = E` or `name += [E]`."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _ADDERS
            and isinstance(func.value, ast.Name)
            and func.value.id == name
            and len(call.args) == 1
            and not call.keywords
        ):
            return call.args[0]
        return None
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Subscript)
        and isinstance(statement.targets[0].value, ast.Name)
        and statement.targets[0].value.id == name
    ):
        return statement.value
    if (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.op, ast.Add)
        and isinstance(statement.target, ast.Name)
        and statement.target.id == name
        and isinstance(statement.value, ast.List)
        and len(statement.value.elts) == 1
    ):
        return statement.value.elts[0]
    return None


def _store_detached(ctx: Context, name: str, value: ast.expr) -> list[Candidate]:
    node = ctx.doc.cst_expression(value)
    if node is None or not _detachable(value):
        return []
    detached = _wrapped(ctx, value, "detach")
    plan = ctx.plan()
    plan.replace(node, ctx.doc.parse_expression(detached))
    title = f"Store `{detached}` in `{name}`: its values without the graph"
    return [ctx.candidate(title, plan, True, "collect-detached")]


def _running_total(ctx: Context, name: str, statement, term: ast.expr) -> list[Candidate]:
    node = ctx.doc.cst_expression(term)
    if node is None or not _detachable(term):
        return []
    as_number = _surely_a_number(ctx, term, statement) and _used_as_number(ctx, name, statement)
    method = "item" if as_number else "detach"
    value = _wrapped(ctx, term, method)
    plan = ctx.plan()
    plan.replace(node, ctx.doc.parse_expression(value))
    kept = "a plain number" if as_number else "a tensor without the graph"
    title = f"Add `{value}` to `{name}`, which stays {kept}"
    return [ctx.candidate(title, plan, True, f"accumulate-{method}")]


def _surely_a_number(ctx: Context, term: ast.expr, statement: ast.stmt) -> bool:
    """`term` is a name that the same scope back-propagates with a bare `.backward()`."""
    if not isinstance(term, ast.Name):
        return False
    scope = ctx.doc.scope_of(statement)
    return any(
        is_backward_call(n)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == term.id
        and not n.args
        and not any(k.arg in ("gradient", "inputs") for k in n.keywords)
        for n in walk_scope(scope)
    )


def _used_as_number(ctx: Context, name: str, statement: ast.stmt) -> bool:
    """Every other read of `name` in its scope is arithmetic, a comparison or a number
    conversion (print, float, an f-string), where a float does what the tensor did."""
    doc = ctx.doc
    scope = doc.scope_of(statement)
    for node in walk_scope(scope):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = doc.parents.get(node)
        if parent is statement or isinstance(
            parent, (ast.BinOp, ast.Compare, ast.FormattedValue, ast.UnaryOp)
        ):
            continue
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in _NUMBER_USES
            and node in parent.args
        ):
            continue
        return False
    return True

"""AG006 fixes: say what `.data` meant, in a way autograd still checks.

- a read (`running += loss.data`, `w.data.cpu()`): `loss.detach()`, the same storage
  without history whose version counter autograd still checks.
- an in-place write through `.data` (`p.data.add_(g)`, `p.data[mask] = 0`,
  `p.data *= 0.9`): the same write on the tensor itself under `torch.no_grad()` (no
  history is recorded, and the version counter is bumped, so a backward that saved the
  tensor raises instead of silently using the new values). Inside a `no_grad` block
  already, only `.data` goes.

Not rewritten: `p.data = v` swaps the tensor (its shape or dtype may change), which no
in-place op under no_grad reproduces; and a write that is part of a larger statement.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.model import Role
from .context import Candidate, Context
from .infer import dotted


def data_fixes(ctx: Context) -> list[Candidate]:
    built = ctx.steps(Role.BUILT)
    if not built:
        return []
    data = ctx.doc.expression_at(built[-1].span)
    if not (isinstance(data, ast.Attribute) and data.attr == "data"):
        return []
    if ctx.finding.kind == "read":
        return _read(ctx, data)
    if ctx.finding.kind == "write":
        return _write(ctx, data)
    return []


def _read(ctx: Context, data: ast.Attribute) -> list[Candidate]:
    node = ctx.doc.cst_expression(data)
    if node is None or not isinstance(data.ctx, ast.Load):
        return []
    owner = ctx.doc.text(data.value)
    plan = ctx.plan()
    plan.replace(node, ctx.doc.parse_expression(f"{owner}.detach()"))
    title = f"Use `{owner}.detach()` instead of `{owner}.data`"
    return [ctx.candidate(title, plan, True, "data-to-detach")]


def _write(ctx: Context, data: ast.Attribute) -> list[Candidate]:
    doc = ctx.doc
    statement = doc.statement_containing(doc.span(data))
    if not _is_the_write(statement, data) or ctx.torch is None:
        return []
    statement_cst = doc.cst_statement(statement)
    data_cst = doc.cst_expression(data)
    if statement_cst is None or data_cst is None:
        return []
    owner = doc.text(data.value)
    direct = statement_cst.deep_replace(data_cst, data_cst.value)
    plan = ctx.plan()
    if _under_no_grad(doc, statement):
        plan.replace(statement_cst, direct)
        title = f"Write to `{owner}` itself (this block already runs under no_grad)"
        return [ctx.candidate(title, plan, True, "data-write-no-grad")]
    wrapped = cst.With(
        items=[cst.WithItem(doc.parse_expression(f"{ctx.torch}.no_grad()"))],
        body=cst.IndentedBlock(body=[direct.with_changes(leading_lines=[])]),
        leading_lines=direct.leading_lines,
    )
    plan.replace(statement_cst, wrapped)
    title = f"Write to `{owner}` itself under `with {ctx.torch}.no_grad():`"
    return [ctx.candidate(title, plan, True, "data-write-no-grad")]


def _is_the_write(statement: ast.stmt | None, data: ast.Attribute) -> bool:
    """The statement is the write itself: `x.data.op_(...)`, `torch.op_(x.data, ...)`,
    `x.data[i] = v`, `x.data += v` or `x.data[i] += v`."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.value is data:
            return call.func.attr.endswith("_")
        return bool(call.args) and call.args[0] is data and (dotted(call.func) or "").endswith("_")
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        return isinstance(target, ast.Subscript) and target.value is data
    if isinstance(statement, ast.AugAssign):
        target = statement.target
        return target is data or (isinstance(target, ast.Subscript) and target.value is data)
    return False


def _under_no_grad(doc, statement: ast.stmt) -> bool:
    for ancestor in doc.ancestors(statement):
        if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False
        if isinstance(ancestor, (ast.With, ast.AsyncWith)) and any(
            (dotted(item.context_expr.func) or "").endswith("no_grad")
            for item in ancestor.items
            if isinstance(item.context_expr, ast.Call)
        ):
            return True
    return False

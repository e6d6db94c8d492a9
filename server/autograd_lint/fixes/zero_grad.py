"""AG005 fixes: gradients cleared where the step can use them, by the optimizer that steps.

- never cleared: `opt.zero_grad()` at the start of the loop body, before the forward
  (when the backward and the step both run unconditionally in that body).
- cleared between the backward and the step: move the `zero_grad()` to the start of the
  loop body (preferred when the backward and the step sit in it), or right after the step
  (same block: a step under `if` that accumulates on purpose keeps accumulating).
- the wrong optimizer cleared (`g_opt.zero_grad()` where `d_opt` steps): clear `d_opt`
  there instead when `g_opt` is cleared again before its own step (the copy-paste slip),
  else add `d_opt.zero_grad()` next to it.

The optimizer is the receiver of the `step()` the finding names, read from the syntax;
a receiver that is not a plain name or attribute chain gets no rewrite.
"""

from __future__ import annotations

import ast

from ..analysis.model import Role
from .context import Candidate, Context, is_inside
from .infer import dotted

LOOPS = (ast.For, ast.AsyncFor, ast.While)


def zero_grad_fixes(ctx: Context) -> list[Candidate]:
    kind = ctx.finding.kind
    if kind == "never-cleared":
        return _never_cleared(ctx)
    if kind == "cleared-before-step":
        return _cleared_before_step(ctx)
    if kind == "other-optimizer":
        return _other_optimizer(ctx)
    return []


def _statement(ctx: Context, role: Role) -> ast.stmt | None:
    steps = ctx.steps(role)
    return ctx.statement_for(steps[-1].span) if steps else None


def _method_call(statement: ast.stmt | None, method: str) -> ast.Call | None:
    """The call of `statement` when it is nothing but `<dotted name>.method(...)`."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == method):
        return None
    return call if dotted(call.func.value) else None


def _receiver(call: ast.Call) -> str:
    return dotted(call.func.value)


def _direct_child(doc, node: ast.AST, body: list[ast.stmt]) -> ast.stmt | None:
    """The statement of `body` that holds `node`."""
    for candidate in [node, *doc.ancestors(node)]:
        if any(candidate is s for s in body):
            return candidate
    return None


def _innermost_loop(doc, *nodes) -> ast.AST | None:
    first = nodes[0]
    for ancestor in doc.ancestors(first):
        if isinstance(ancestor, LOOPS) and all(is_inside(doc, n, ancestor) for n in nodes):
            return ancestor
    return None


def _at_loop_top(ctx: Context, loop, code: str, plan=None):
    loop_cst = ctx.doc.cst_statement(loop)
    if loop_cst is None or not hasattr(getattr(loop_cst, "body", None), "body"):
        return None
    plan = plan or ctx.plan()
    plan.insert_at_top(loop_cst, code)
    return plan


def _never_cleared(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    step_statement = _statement(ctx, Role.FAILS)
    backward_statement = _statement(ctx, Role.BUILT)
    step = _method_call(step_statement, "step")
    if step is None or backward_statement is None or step.args or step.keywords:
        return []
    loop = _innermost_loop(doc, step_statement, backward_statement)
    if loop is None:
        return []
    body = loop.body
    backward_top = _direct_child(doc, backward_statement, body)
    # Both unconditional in the body, the backward first: clearing at the top of each
    # iteration drops only gradients an earlier step already used.
    if not any(step_statement is s for s in body) or backward_top is None:
        return []
    if body.index(backward_top) > body.index(step_statement):
        return []
    receiver = _receiver(step)
    plan = _at_loop_top(ctx, loop, f"{receiver}.zero_grad()\n")
    if plan is None:
        return []
    title = f"Clear the gradients at the start of each step: `{receiver}.zero_grad()`"
    return [ctx.candidate(title, plan, True, "add-zero-grad")]


def _cleared_before_step(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    zero_statement = _statement(ctx, Role.NOTE)
    step_statement = _statement(ctx, Role.FAILS)
    backward_statement = _statement(ctx, Role.BUILT)
    zero = _method_call(zero_statement, "zero_grad")
    if zero is None or step_statement is None or backward_statement is None:
        return []
    zero_cst, step_cst = doc.cst_statement(zero_statement), doc.cst_statement(step_statement)
    if zero_cst is None or step_cst is None:
        return []
    code = doc.text(zero_statement) + "\n"
    shown = doc.text(zero_statement)
    out = []
    loop = _innermost_loop(doc, zero_statement, step_statement, backward_statement)
    if loop is not None and any(zero_statement is s for s in loop.body):
        body = loop.body
        backward_top = _direct_child(doc, backward_statement, body)
        if (
            any(step_statement is s for s in body)
            and backward_top is not None
            and body.index(backward_top) < body.index(zero_statement) < body.index(step_statement)
        ):
            plan = ctx.plan()
            plan.remove(zero_cst)
            if _at_loop_top(ctx, loop, code, plan) is not None:
                title = f"Move `{shown}` to the start of the step, before the forward"
                out.append(ctx.candidate(title, plan, True, "move-zero-grad-to-top"))
    try:
        same_block = doc.block_of(zero_statement)[2] is doc.block_of(step_statement)[2]
    except LookupError:
        same_block = False
    if same_block and zero_statement.lineno < step_statement.lineno:
        plan = ctx.plan()
        plan.remove(zero_cst)
        plan.insert_after(step_cst, code)
        title = f"Move `{shown}` after `{doc.text(step_statement)}`"
        out.append(ctx.candidate(title, plan, not out, "move-zero-grad-after-step"))
    return out


def _other_optimizer(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    zero_statement = _statement(ctx, Role.NOTE)
    step_statement = _statement(ctx, Role.FAILS)
    zero = _method_call(zero_statement, "zero_grad")
    step = _method_call(step_statement, "step")
    if zero is None or step is None:
        return []
    zero_cst = doc.cst_statement(zero_statement)
    receiver_cst = doc.cst_expression(zero.func.value)
    if zero_cst is None or receiver_cst is None:
        return []
    wrong, right = _receiver(zero), _receiver(step)
    out = []
    if _cleared_again_before_its_steps(doc, zero_statement, wrong):
        plan = ctx.plan()
        plan.replace(receiver_cst, doc.parse_expression(right))
        title = f"Clear `{right}` here instead of `{wrong}`, which is cleared again before its step"
        out.append(ctx.candidate(title, plan, True, "clear-stepped-optimizer"))
    plan = ctx.plan()
    indent_free = doc.text(zero_statement).replace(wrong, right, 1)
    if indent_free == doc.text(zero_statement):
        return out
    plan.insert_after(zero_cst, indent_free + "\n")
    title = f"Also clear `{right}`: add `{right}.zero_grad()`"
    out.append(ctx.candidate(title, plan, not out, "add-zero-grad"))
    return out


def _cleared_again_before_its_steps(doc, zero_statement: ast.stmt, receiver: str) -> bool:
    """In the block of `zero_statement`, `receiver` is cleared again after it, and every
    `receiver.step()` after it comes after that second clearing."""
    try:
        body = doc.block_of(zero_statement)[2]
    except LookupError:
        return False
    later = body[body.index(zero_statement) + 1 :]
    again = next(
        (
            i
            for i, s in enumerate(later)
            if (c := _method_call(s, "zero_grad")) is not None and _receiver(c) == receiver
        ),
        None,
    )
    if again is None:
        return False
    for i, statement in enumerate(later):
        for node in ast.walk(statement):
            is_step = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "step"
                and dotted(node.func.value) == receiver
            )
            if is_step and i <= again:
                return False
    return True

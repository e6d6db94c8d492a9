"""AG002 fixes: a second backward through a graph the first one freed, in one step.

- GAN pattern (the shared value goes through the same module in both losses, like
  `discriminator(fake)`): detach it in the first loss, so that backward stops at it.
- two losses over a shared trunk, back to back: back-propagate their sum once.
- otherwise: keep the graph alive in the first backward (`retain_graph=True`), and
  move a `retain_graph=True` that sits on the second one instead.
- the same loss twice: drop the second call (its gradients are already there); keeping
  the graph instead would add every gradient twice, so that fix is offered but never
  preferred, and its title says so.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.model import Role
from .common import is_backward_call, names_bound, names_read
from .context import Candidate, Context, detach_name_arguments
from .infer import dotted
from .verify import finding_gone


def shared_fixes(ctx: Context) -> list[Candidate]:
    first, second = ctx.freed_call(), ctx.fails_call()
    if (
        first is None
        or second is None
        or not ((is_backward_call(first) or _is_autograd_grad(first)) and is_backward_call(second))
    ):
        return []
    if ctx.finding.kind == "same-tensor":
        return _same_tensor(ctx, first, second)
    if _is_autograd_grad(first):
        retained = _retain_first(ctx, first, second, preferred=True)
        return [retained] if retained else []
    out = _detach_in_first_loss(ctx, first, second)
    summed = _sum_losses(ctx, first, second, preferred=not out)
    if summed:
        out.append(summed)
    # Keeping the graph can trade this error for another: an optimizer step between the
    # two passes changes weights the kept graph saved (AG007), as in a PPO loop that fits
    # its critic every time step and back-propagates the kept advantages after the episode.
    retained = _verified(ctx, _retain_first(ctx, first, second, preferred=not out))
    if retained:
        out.append(retained)
    return out


def _statement_of(ctx, call) -> ast.Expr | None:
    statement = ctx.doc.statement_containing(ctx.doc.span(call))
    if isinstance(statement, ast.Expr) and statement.value is call:
        return statement
    return None


# -- the GAN pattern --------------------------------------------------------------------
def _detach_in_first_loss(ctx, first, second) -> list[Candidate]:
    doc = ctx.doc
    shared = ctx.finding.extra.get("shared")
    shared_steps = ctx.steps(Role.SHARED)
    if not shared or not shared_steps:
        return []
    start = shared_steps[0].span.start.line
    first_calls = calls_on(ctx, loss_chain(ctx, first.func.value, start, first.lineno), shared)
    second_calls = calls_on(ctx, loss_chain(ctx, second.func.value, start, second.lineno), shared)
    common = {doc.text(c.func) for c in first_calls} & {doc.text(c.func) for c in second_calls}
    targets = [c for c in first_calls if doc.text(c.func) in common]
    if not targets:
        return []
    plan = ctx.plan()
    if detach_name_arguments(doc, plan, targets, shared) is None:
        return []
    callee = sorted(common)[0]
    title = f"Detach `{shared}` in the first loss: `{callee}({shared}.detach())`"
    # The first loss may reach the shared graph another way too (a WGAN-GP critic loss's
    # `gradient_penalty(critic, real, fake)`), and detaching `fake` in that call would break
    # the penalty's autograd.grad (torch: "One of the differentiated Tensors does not
    # require grad"): the detach is offered only when the analysis of the fixed text no
    # longer finds this.
    candidate = _verified(ctx, ctx.candidate(title, plan, True, "detach-shared"))
    return [candidate] if candidate else []


def _verified(ctx, candidate: Candidate | None) -> Candidate | None:
    return candidate if candidate is not None and finding_gone(ctx, candidate.new_source) else None


def loss_chain(ctx, receiver, after_line, before_line) -> list[ast.stmt]:
    """Statements (between the shared value and the backward) the loss is computed by."""
    doc = ctx.doc
    scope = doc.scope_of(receiver)
    wanted = names_read([receiver])
    chain = []
    candidates = [
        s
        for s in ast.walk(scope)
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and after_line <= s.lineno < before_line
    ]
    for statement in sorted(candidates, key=lambda s: s.lineno, reverse=True):
        if names_bound([statement]) & wanted:
            chain.append(statement)
            value = statement.value
            if value is not None:
                wanted |= names_read([value])
    return chain


def calls_on(ctx, statements, shared) -> list[ast.Call]:
    return [
        node
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and any(isinstance(a, ast.Name) and a.id == shared for a in node.args)
    ]


# -- one backward through the sum -------------------------------------------------------
def _sum_losses(ctx, first, second, preferred) -> Candidate | None:
    doc = ctx.doc
    first_statement, second_statement = _statement_of(ctx, first), _statement_of(ctx, second)
    if first_statement is None or second_statement is None or first.args or first.keywords:
        return None
    try:
        body = doc.block_of(first_statement)[2]
    except LookupError:
        return None
    if all(s is not second_statement for s in body):
        return None
    i = next(i for i, s in enumerate(body) if s is first_statement)
    j = next(i for i, s in enumerate(body) if s is second_statement)
    between = body[i + 1 : j]
    # Anything that runs in between (reading gradients, an optimizer step) would see
    # different gradients once the first backward is gone.
    if j < i or any(isinstance(n, ast.Call) for s in between for n in ast.walk(s)):
        return None
    first_receiver, second_receiver = first.func.value, second.func.value
    if names_bound(between) & names_read([first_receiver]):
        return None
    first_cst = doc.cst_statement(first_statement)
    receiver_cst = doc.cst_expression(second_receiver)
    if first_cst is None or receiver_cst is None:
        return None
    total = f"({doc.text(first_receiver)} + {doc.text(second_receiver)})"
    plan = ctx.plan()
    plan.remove(first_cst)
    plan.replace(receiver_cst, doc.parse_expression(total))
    title = f"Back-propagate once through the sum: `{total}.backward()`"
    return ctx.candidate(title, plan, preferred, "sum-losses")


# -- retain_graph on the first backward ------------------------------------------------
def _retain_first(ctx, first, second, preferred, *, doubled=False) -> Candidate | None:
    doc = ctx.doc
    first_cst = doc.cst_expression(first)
    if first_cst is None:
        return None
    retain = next((k for k in first.keywords if k.arg == "retain_graph"), None)
    # retain_graph may be passed by position: backward(gradient, retain_graph, ...),
    # autograd.grad(outputs, inputs, grad_outputs, retain_graph, ...). Adding the keyword
    # then would raise "got multiple values for argument 'retain_graph'".
    position = 3 if _is_autograd_grad(first) else 1
    retain_value = retain.value if retain is not None else None
    if retain_value is None and len(first.args) > position:
        retain_value = first.args[position]
    plan = ctx.plan()
    if retain_value is not None:
        value = doc.cst_expression(retain_value)
        if value is None:
            return None
        plan.replace(value, doc.parse_expression("True"))
    else:
        plan.replace(first_cst, _with_keyword(first_cst, "retain_graph", "True"))
    moved = next((k for k in second.keywords if k.arg == "retain_graph"), None)
    if _is_autograd_grad(first):
        name = doc.text(first.func)
        title = f"Keep the graph for the backward after it: `{name}(..., retain_graph=True)`"
        return ctx.candidate(title, plan, preferred, "retain-first")
    receiver = doc.text(first.func.value)
    if moved is not None:
        second_cst = doc.cst_expression(second)
        if second_cst is None:
            return None
        plan.replace(second_cst, _without_keyword(second_cst, "retain_graph"))
        title = f"Move `retain_graph=True` to the first backward, `{receiver}.backward()`"
    elif doubled:
        title = (
            f"Keep the graph in the first `{receiver}.backward()` "
            "(`retain_graph=True`; the second call adds every gradient again)"
        )
    else:
        title = f"Keep the graph for the second backward: `{receiver}.backward(retain_graph=True)`"
    return ctx.candidate(title, plan, preferred, "retain-first")


def _is_autograd_grad(call: ast.Call) -> bool:
    return (dotted(call.func) or "").endswith("autograd.grad")


def _with_keyword(call: cst.Call, name: str, value: str) -> cst.Call:
    args = list(call.args)
    if args:
        last = args[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT:
            args[-1] = last.with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
    args.append(
        cst.Arg(
            value=cst.parse_expression(value),
            keyword=cst.Name(name),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
    )
    return call.with_changes(args=args)


def _without_keyword(call: cst.Call, name: str) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


# -- the same loss twice ---------------------------------------------------------------
def _same_tensor(ctx, first, second) -> list[Candidate]:
    doc = ctx.doc
    out = []
    second_statement = _statement_of(ctx, second)
    second_cst = doc.cst_statement(second_statement) if second_statement else None
    if second_cst is not None:
        plan = ctx.plan()
        plan.remove(second_cst)
        title = f"Remove the second `{doc.text(second.func.value)}.backward()`; the gradients are already there"
        out.append(ctx.candidate(title, plan, True, "remove-second-backward"))
    retained = _retain_first(ctx, first, second, preferred=False, doubled=True)
    if retained:
        out.append(retained)
    return out

"""AG004 and AG007 fixes around `retain_graph=True`.

- a `retain_graph=True` that no later backward needs (AG004 retain-unneeded): drop it.
- a `retain_graph=True` that keeps a carried graph alive (AG004 retain-carried, and the
  AG007 crash once an optimizer step has changed the weights that graph saved): drop it
  *and* apply the AG001 fix the analysis then finds (detach the carried state). Keeping
  the graph is never the fix for a carried graph: every later step would back-propagate
  through all earlier ones.

The carried form is composed from two proven pieces, so the result is checked again:
it is offered only when the analysis of the fixed text has no error the original did not
have and this finding is gone.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.model import Role
from .context import Candidate, Context
from .document import SCOPES
from .infer import dotted
from .verify import RETAIN_TOO, finding_gone

# Where `retain_graph` sits when passed by position.
_POSITION = {"backward": 1, "autograd.backward": 2, "autograd.grad": 3}


def retain_fixes(ctx: Context) -> list[Candidate]:
    call = _retaining_call(ctx)
    if call is None:
        return []
    plan = ctx.plan()
    call_cst = ctx.doc.cst_expression(call)
    if call_cst is None:
        return []
    plan.replace(call_cst, without_keyword(call_cst, "retain_graph"))
    dropped = plan.new_source()
    shown = f"{ctx.doc.text(call.func)}()"
    if ctx.finding.code == "AG004" and ctx.finding.kind == "retain-unneeded":
        if _backward_follows(ctx, call):
            return []
        title = f"Remove `retain_graph=True` from `{shown}`: no later backward needs the graph"
        return [ctx.candidate(title, dropped, True, "drop-retain-graph")]
    fixed = _with_carried_fix(ctx, dropped)
    if fixed is None:
        return []
    title = f"Remove `retain_graph=True` from `{shown}` and detach the state the loop carries"
    return [ctx.candidate(title, fixed, True, "retain-to-detach")]


def _backward_follows(ctx: Context, call: ast.Call) -> bool:
    """Whether another backward (or autograd.grad) runs after `call` in program order:
    later in its block, or after the block (an inner loop's last `retain_graph=True` that
    the step after the loop needs, as in a WGAN-GP critic loop). The analysis says no later
    backward uses the graph; when one follows, a wrong "needless" would make the fix break
    a working program, so the keyword stays."""
    doc = ctx.doc
    node = doc.statement_containing(doc.span(call))
    while node is not None and not isinstance(node, SCOPES):
        try:
            body = doc.block_of(node)[2]
        except LookupError:
            return True  # not in a statement list we can read: do not guess
        later = body[next(i for i, s in enumerate(body) if s is node) + 1 :]
        if any(_kind(n) is not None for s in later for n in ast.walk(s) if isinstance(n, ast.Call)):
            return True
        node = doc.parents.get(node)
    return False


def _retaining_call(ctx: Context) -> ast.Call | None:
    """The backward of the finding when it passes `retain_graph=True` as a keyword."""
    steps = ctx.steps(Role.FAILS)
    if not steps:
        return None
    call = ctx.call_at(steps[-1].span)
    if call is None or _kind(call) is None:
        return None
    retain = [k for k in call.keywords if k.arg == "retain_graph"]
    if len(retain) != 1 or not (
        isinstance(retain[0].value, ast.Constant) and retain[0].value.value is True
    ):
        return None  # positional, computed or absent: not a rewrite we can be sure of
    if any(k.arg is None for k in call.keywords):
        return None  # **kwargs might pass it again
    return call


def _kind(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Attribute) and call.func.attr == "backward":
        name = dotted(call.func) or ""
        return "autograd.backward" if name.endswith("autograd.backward") else "backward"
    if (dotted(call.func) or "").endswith("autograd.grad"):
        return "autograd.grad"
    return None


def _with_carried_fix(ctx: Context, dropped: str) -> str | None:
    # Imported here: the engine imports this module.
    from ..analysis import analyze
    from .engine import apply_fixes, fixes_for

    path = ctx.finding.path or "<string>"
    loop = _loop_lines(ctx)
    carried = [
        f
        for f in analyze(dropped, path)
        if f.code == "AG001" and f.loop is not None and loop[0] <= f.span.start.line <= loop[1]
    ]
    for finding in carried:
        best = next((f for f in fixes_for(dropped, finding) if f.preferred), None)
        if best is None:
            continue
        fixed = apply_fixes(dropped, [best])
        if finding_gone(ctx, fixed, RETAIN_TOO):
            return fixed
    return None


def _loop_lines(ctx: Context) -> tuple[int, int]:
    steps = ctx.steps(Role.FAILS)
    call = ctx.call_at(steps[-1].span)
    loops = [
        a for a in ctx.doc.ancestors(call) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))
    ]
    if not loops:
        return (0, -1)
    outer = loops[-1]
    return outer.lineno, outer.end_lineno


def without_keyword(call: cst.Call, name: str) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)

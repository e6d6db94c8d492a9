"""AG001 fixes for state carried from one iteration to the next.

- carried tensors (an RNN's hidden state, an evolving weight, a buffer): detach them
  at the top of the loop body, where each iteration starts; an LSTM's `(h, c)` tuple
  element by element; a state that is still `None` (or a number) before the first
  iteration behind a guard; a leaf that requires grad stays one.
- a bare `hidden.detach()` whose result is thrown away: assign it.
- an accumulated loss that is back-propagated: back-propagate each iteration's own
  loss and add only its value to the running sum, or (when the backward runs every
  few iterations) start the sum again after each backward.

Containers and state kept on objects: see `stored`.
"""

from __future__ import annotations

import ast

from ..analysis.model import Role
from .common import (
    detach_statement,
    fresh_name,
    is_backward_call,
    names_read,
    requires_grad_leaves,
)
from .context import Candidate, Context, bound_before, is_inside
from .infer import LIST, TENSOR, UNKNOWN, dotted, walk_scope
from .stored import empty_lists


def carried_fixes(ctx: Context) -> list[Candidate]:
    loop = ctx.loop()
    steps = ctx.steps(Role.CARRIED)
    if loop is None or (ctx.finding.steps(Role.CARRIED) and not steps):
        return []  # no loop, or the carriers are in another file
    carriers = _ordered_carriers(ctx, steps) if steps else _carrier_of_built(ctx, loop)
    if not carriers:
        return []
    if ctx.finding.kind == "accumulated":
        if _sum_restarted(ctx, carriers):
            # The sum already starts again after its backward (voxelpose issue 47's
            # `pending = 0`): what frees the graphs it holds is another backward of the same
            # step, which neither a reset nor a detach mends (docs/fixes.md).
            return []
        found = _accumulated_loss(ctx, loop, carriers)
        if found:
            return found
    out = []
    lists = [name for name, _ in carriers if LIST in _kinds(ctx, name, loop)]
    if lists:
        return empty_lists(ctx, carriers)
    out.extend(_assign_bare_detach(ctx, loop, carriers))
    if ctx.finding.kind == "accumulated":
        out.extend(_restart_at_loop_top(ctx, loop, carriers))
    out.extend(_detach_at_loop_top(ctx, loop, carriers, preferred=not out))
    return out


def _restart_at_loop_top(ctx, loop, carriers) -> list[Candidate]:
    """A sum built up by an inner loop (`penalty += p.abs().sum()`) starts afresh per step."""
    doc = ctx.doc
    if len(carriers) != 1:
        return []
    name, accumulation = carriers[0]
    inner = [
        a
        for a in doc.ancestors(accumulation)
        if isinstance(a, (ast.For, ast.AsyncFor, ast.While)) and is_inside(doc, a, loop)
    ]
    if loop in inner:
        inner.remove(loop)
    start = _initial_value(doc, name, loop)
    loop_cst = doc.cst_statement(loop)
    if not inner or start is None or loop_cst is None or not _has_indented_body(loop_cst):
        return []
    plan = ctx.plan()
    plan.insert_at_top(loop_cst, f"{name} = {start}\n")
    title = f"Start `{name}` afresh in each iteration: `{name} = {start}`"
    return [ctx.candidate(title, plan, True, "restart-at-loop-top")]


def _initial_value(doc, name, loop, *, factories: bool = True) -> str | None:
    """The fresh value `name` gets before the loop: a number, or (with `factories`) a
    torch factory call."""
    found = None
    for node in walk_scope(doc.scope_of(loop)):
        if not (
            isinstance(node, ast.Assign)
            and node.lineno < loop.lineno
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        ):
            continue
        value = node.value
        fresh = isinstance(value, ast.Constant) and isinstance(value.value, (int, float))
        torch_call = isinstance(value, ast.Call) and (dotted(value.func) or "").startswith("torch.")
        if factories and torch_call:
            fresh = all(
                isinstance(n, (ast.Constant, ast.Name, ast.Load, ast.Tuple, ast.keyword))
                or n is value
                or n is value.func
                or is_inside_expr(n, value.func)
                for n in ast.walk(value)
            )
        found = doc.text(value) if fresh else None
    return found


def is_inside_expr(node, container) -> bool:
    return any(n is node for n in ast.walk(container))


def _carrier_of_built(ctx, loop) -> list[tuple[str, ast.stmt]]:
    """When the evidence names no carrier: the graph is built by `v = v * decay + f(x)`
    into a name that had a value before the loop: that name. The statement is in the
    loop, or in a function the module-level loop calls that declares the name `global`."""
    doc = ctx.doc
    built = ctx.steps(Role.BUILT)
    statement = ctx.statement_for(built[0].span) if built else None
    if not isinstance(statement, (ast.Assign, ast.AugAssign)):
        return []
    if isinstance(statement, ast.AugAssign):
        targets, value = [statement.target], None
    else:
        targets, value = statement.targets, statement.value
    bound = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    read = names_read([value]) if value is not None else set(bound)
    names = [name for name in dict.fromkeys(bound) if name in read]
    if len(names) != 1:
        return []
    (name,) = names
    function = doc.scope_of(statement)
    declared_global = any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(function))
    inside = is_inside(doc, statement, loop) and statement is not loop
    at_module = isinstance(doc.scope_of(loop), ast.Module)
    if not (inside or (declared_global and at_module)):
        return []
    if not bound_before(doc, name, loop):
        return []
    return [(name, statement)]


def _kinds(ctx: Context, name: str, loop: ast.AST) -> set[str]:
    return ctx.inference.name_kinds(name, ctx.doc.scope_of(loop))


def _ordered_carriers(ctx, steps) -> list[tuple[str, ast.stmt]]:
    """(name, binding statement), in source order, each name once."""
    seen, out = set(), []
    for step in steps:
        statement = ctx.statement_for(step.span)
        if step.name in seen or statement is None:
            continue
        seen.add(step.name)
        column = next(
            (
                n.col_offset
                for n in ast.walk(statement)
                if isinstance(n, ast.Name) and n.id == step.name
            ),
            0,
        )
        out.append(((statement.lineno, column), step.name, statement))
    out.sort(key=lambda item: item[0])
    return [(name, statement) for _, name, statement in out]


# -- detach at the top of the loop -----------------------------------------------------
def _detach_at_loop_top(ctx, loop, carriers, preferred) -> list[Candidate]:
    doc = ctx.doc
    names = [name for name, _ in carriers if "." not in name]
    if not names or len(names) != len(carriers):
        return []
    if not all(bound_before(doc, name, loop) for name in names):
        return _detach_where_bound(ctx, loop, carriers, preferred)
    loop_cst = doc.cst_statement(loop)
    if loop_cst is None or not _has_indented_body(loop_cst):
        return []
    typed = [(name, _kinds(ctx, name, loop)) for name in names]
    leaves = requires_grad_leaves(doc.scope_of(loop), set(names))
    code = detach_statement(typed, ctx.torch, leaves)
    if code is None:
        return _detach_where_bound(ctx, loop, carriers, preferred)
    plan = ctx.plan()
    plan.insert_at_top(loop_cst, code)
    shown = " and ".join(f"`{name}`" for name in names)
    title = f"Detach {shown} at the start of each iteration"
    return [ctx.candidate(title, plan, preferred, "detach-loop-top")]


def _detach_where_bound(ctx, loop, carriers, preferred) -> list[Candidate]:
    """For a name with no value before the loop: store it detached (`prev = loss.detach()`)."""
    doc = ctx.doc
    if len(carriers) != 1:
        return []
    name, statement = carriers[0]
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and is_inside(doc, statement, loop)
    ):
        return []
    target = statement.targets[0]
    # `prev = loss`, or a container slot: `states[session] = hidden`.
    stored_in = target.value if isinstance(target, ast.Subscript) else target
    if not (isinstance(stored_in, ast.Name) and stored_in.id == name):
        return []
    scope = doc.scope_of(loop)
    # The finding says the stored value carries a graph; it must not be known as a tuple.
    if not {TENSOR} <= ctx.inference.kinds(statement.value, scope) <= {TENSOR, UNKNOWN}:
        return []
    # The value is read later in the same iteration: detaching it there would cut the
    # gradient of this iteration's own loss.
    later = [
        n
        for n in ast.walk(loop)
        if isinstance(n, ast.Name)
        and n.id == name
        and isinstance(n.ctx, ast.Load)
        and (n.lineno, n.col_offset) > (statement.end_lineno, statement.end_col_offset)
    ]
    if later:
        return []
    value = doc.cst_expression(statement.value)
    if value is None:
        return []
    text = doc.text(statement.value)
    simple = isinstance(statement.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    detached = f"{text}.detach()" if simple else f"({text}).detach()"
    plan = ctx.plan()
    plan.replace(value, doc.parse_expression(detached))
    title = f"Store `{name}` detached: `{doc.text(target)} = {detached}`"
    return [ctx.candidate(title, plan, preferred, "detach-where-bound")]


def _assign_bare_detach(ctx, loop, carriers) -> list[Candidate]:
    """`hidden.detach()` alone on a line does nothing: make it `hidden = hidden.detach()`."""
    doc = ctx.doc
    names = {name for name, _ in carriers}
    out = []
    for statement in loop.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (
            isinstance(call, ast.Call)
            and not call.args
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "detach"
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in names
        ):
            continue
        name = call.func.value.id
        if _kinds(ctx, name, loop) != {TENSOR}:
            continue
        line = doc.cst_statement(statement)
        if line is None:
            continue
        plan = ctx.plan()
        small = line.body[0]
        new_small = doc.parse_statements(f"{name} = {doc.text(call)}\n")[0].body[0]
        plan.replace(small, new_small)
        title = f"Keep the detached value: `{name} = {doc.text(call)}`"
        out.append(ctx.candidate(title, plan, True, "assign-detach"))
    return out


def _has_indented_body(node) -> bool:
    import libcst as cst

    return isinstance(getattr(node, "body", None), cst.IndentedBlock)


# -- an accumulated loss that is back-propagated ---------------------------------------
def _accumulated_loss(ctx, loop, carriers) -> list[Candidate]:
    doc = ctx.doc
    call = ctx.fails_call()
    if len(carriers) != 1 or call is None or not is_backward_call(call):
        return []
    name, accumulation = carriers[0]
    receiver = call.func.value
    if not (isinstance(receiver, ast.Name) and receiver.id == name):
        return []
    term = _accumulated_term(accumulation, name)
    backward = doc.statement_containing(doc.span(call))
    if term is None or not isinstance(backward, ast.Expr) or backward.value is not call:
        return []
    if not (is_inside(doc, accumulation, loop) and is_inside(doc, backward, loop)):
        return []
    same_block = doc.block_of(accumulation)[2] is doc.block_of(backward)[2]
    if same_block and backward.lineno > accumulation.end_lineno:
        return _backward_own_loss(ctx, name, accumulation, term, call)
    return _restart_sum(ctx, name, loop, backward)


def _accumulated_term(statement, name) -> ast.expr | None:
    """`E` in `name += E`, `name = name + E` or `name = E + name`."""
    if (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.op, ast.Add)
        and isinstance(statement.target, ast.Name)
        and statement.target.id == name
    ):
        return statement.value
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == name
        and isinstance(statement.value, ast.BinOp)
        and isinstance(statement.value.op, ast.Add)
    ):
        left, right = statement.value.left, statement.value.right
        if isinstance(left, ast.Name) and left.id == name:
            return right
        if isinstance(right, ast.Name) and right.id == name:
            return left
    return None


def _backward_own_loss(ctx, name, accumulation, term, call) -> list[Candidate]:
    doc = ctx.doc
    scope = doc.scope_of(accumulation)
    # `.item()` leaves a float; only where the sum is never used as a tensor.
    tensor_uses = [
        n
        for n in walk_scope(scope)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == name
        and n is not call.func
    ]
    as_number = not tensor_uses and not call.args and not call.keywords
    plan = ctx.plan()
    term_cst = doc.cst_expression(term)
    accumulation_cst = doc.cst_statement(accumulation)
    receiver_cst = doc.cst_expression(call.func.value)
    if term_cst is None or accumulation_cst is None or receiver_cst is None:
        return []
    if isinstance(term, ast.Name):
        own = term.id
    else:
        own = fresh_name(doc.tree, "batch_loss")
        plan.insert_before(accumulation_cst, f"{own} = {doc.text(term)}\n")
    value = f"{own}.item()" if as_number else f"{own}.detach()"
    plan.replace(term_cst, doc.parse_expression(value))
    plan.replace(receiver_cst, doc.parse_expression(own))
    kept = "a plain number" if as_number else "a tensor without its graph"
    title = f"Back-propagate `{own}` itself and keep `{name}` as {kept}"
    return [ctx.candidate(title, plan, True, "backward-own-loss")]


def _sum_restarted(ctx, carriers) -> bool:
    call = ctx.fails_call()
    if call is None:
        return False
    backward = ctx.doc.statement_containing(ctx.doc.span(call))
    return any(_restarted_after(ctx.doc, backward, name) for name, _ in carriers)


def _restarted_after(doc, backward: ast.stmt, name: str) -> bool:
    """Whether the statement right after `backward` in its block starts `name` again
    (`pending = 0`; not `w = w + step`, which goes on from it)."""
    try:
        body = doc.block_of(backward)[2]
    except LookupError:
        return False
    index = next((i for i, s in enumerate(body) if s is backward), None)
    if index is None or index + 1 >= len(body):
        return False
    after = body[index + 1]
    if not isinstance(after, ast.Assign):
        return False
    reads = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(after.value))
    return not reads and any(isinstance(t, ast.Name) and t.id == name for t in after.targets)


def _restart_sum(ctx, name, loop, backward) -> list[Candidate]:
    """The backward runs every few iterations: start the sum again right after it."""
    doc = ctx.doc
    start = _initial_value(doc, name, loop, factories=False)
    backward_cst = doc.cst_statement(backward)
    if start is None or backward_cst is None:
        return []
    plan = ctx.plan()
    plan.insert_after(backward_cst, f"{name} = {start}\n")
    title = f"Start `{name}` again from `{start}` after each backward"
    return [ctx.candidate(title, plan, True, "restart-sum")]

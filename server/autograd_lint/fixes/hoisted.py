"""AG001 fixes for a graph built once before the loop and back-propagated in every iteration.

Two ways out, and which is right depends on what the hoisted value is:
- it depends on what the optimizer trains (a forward pass, `log_temperature.exp()`):
  compute it inside the loop, so every iteration builds its graph from the current
  weights;
- it does not (a teacher's soft targets, targets computed from a tensor that was made
  with requires_grad by mistake): keep computing it once, under `torch.no_grad()`, so
  it holds no graph at all.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.model import Role
from .common import names_bound, names_read
from .context import Candidate, Context, detach_name_arguments, is_inside
from .infer import dotted

_OPTIMIZERS = frozenset(
    [
        "SGD",
        "Adam",
        "AdamW",
        "Adamax",
        "Adagrad",
        "Adadelta",
        "RMSprop",
        "Rprop",
        "LBFGS",
        "NAdam",
        "RAdam",
        "SparseAdam",
        "ASGD",
    ]
)


def hoisted_fixes(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    loop = ctx.loop()
    if loop is None:
        return []
    statements = []
    for step in ctx.steps(Role.CARRIED):
        statement = ctx.statement_for(step.span)
        if statement is not None and all(s is not statement for s in statements):
            statements.append(statement)
    if not statements:
        return []
    try:
        owner, _, body = doc.block_of(loop)
    except (KeyError, LookupError):
        return []
    positions = [_index(body, s) for s in statements]
    loop_index = _index(body, loop)
    if None in positions or loop_index is None or max(positions) >= loop_index:
        return []
    statements = [s for _, s in sorted(zip(positions, statements), key=lambda p: p[0])]
    positions.sort()
    if any(doc.cst_statement(s) is None for s in statements):
        return []

    out = []
    trained = _trained_names(doc.tree) - _imported_names(doc.tree)
    reads = names_read(statements)
    if ctx.torch and trained and not (reads & trained):
        contiguous = positions == list(range(positions[0], positions[0] + len(positions)))
        if contiguous:
            out.append(_no_grad(ctx, statements))
    target = _innermost_loop(ctx, loop)
    if _read_after(ctx, target, names_bound(statements)):
        # The value's graph is still wanted after the loop (a GAN's generator step after
        # its critic loop): the loop's own loss must not reach into it.
        out.extend(_detach_in_loop_loss(ctx, target, statements))
        return out
    moved = _move_into_loop(ctx, loop, body, positions, statements, preferred=not out)
    if moved:
        out.append(moved)
    return out


def _read_after(ctx, loop, names) -> bool:
    scope = ctx.doc.scope_of(loop)
    end = (loop.end_lineno, loop.end_col_offset)
    return any(
        isinstance(n, ast.Name)
        and n.id in names
        and isinstance(n.ctx, ast.Load)
        and (n.lineno, n.col_offset) > end
        for n in ast.walk(scope)
    )


def _detach_in_loop_loss(ctx, loop, statements) -> list[Candidate]:
    from .shared import calls_on, loss_chain

    doc = ctx.doc
    names = names_bound(statements)
    call = ctx.fails_call()
    if len(names) != 1 or call is None or not is_inside(doc, call, loop):
        return []
    (name,) = names
    chain = loss_chain(ctx, call.func.value, loop.lineno, call.lineno)
    plan = ctx.plan()
    changed = detach_name_arguments(doc, plan, calls_on(ctx, chain, name), name)
    if not changed:
        return []
    shown = f"{doc.text(changed[0].func)}({name}.detach())"
    title = f"Detach `{name}` in the loop's loss: `{shown}`"
    return [ctx.candidate(title, plan, True, "detach-in-loop-loss")]


def _index(body, statement) -> int | None:
    return next((i for i, s in enumerate(body) if s is statement), None)


def _shown(statements) -> str:
    names = []
    for statement in statements:  # in source order, as the reader sees them
        for node in ast.walk(statement):
            stored = isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            if stored and node.id not in names:
                names.append(node.id)
    return ", ".join(f"`{n}`" for n in names) or "the value"


def _move_into_loop(ctx, loop, body, positions, statements, preferred) -> Candidate | None:
    doc = ctx.doc
    moved_names = names_bound(statements)
    in_loop = names_bound([loop])
    # Rebinding in the loop (a decoder state that starts from the encoder's) or reading
    # what the loop binds would change what the moved code computes.
    if moved_names & in_loop or names_read(statements) & in_loop:
        return None
    between = [
        s for s in body[positions[0] : _index(body, loop)] if all(s is not m for m in statements)
    ]
    if names_read(between) & moved_names or names_bound(between) & names_read(statements):
        return None
    target = _innermost_loop(ctx, loop)
    target_cst = doc.cst_statement(target)
    if target_cst is None or not isinstance(getattr(target_cst, "body", None), cst.IndentedBlock):
        return None
    plan = ctx.plan()
    nodes = []
    for statement in statements:
        node = doc.cst_statement(statement)
        plan.remove(node)
        comments = [line for line in node.leading_lines if line.comment is not None]
        nodes.append(node.with_changes(leading_lines=comments))
    plan.insert_nodes_at_top(target_cst, nodes)
    title = f"Compute {_shown(statements)} inside the loop, afresh in every iteration"
    return ctx.candidate(title, plan, preferred, "move-into-loop")


def _innermost_loop(ctx, loop):
    """The innermost loop, inside `loop` and in its function, that runs the failing backward."""
    call = ctx.fails_call()
    if call is None or not is_inside(ctx.doc, call, loop):
        return loop
    for ancestor in ctx.doc.ancestors(call):
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            return ancestor
        if ancestor is loop:
            break
    return loop


def _no_grad(ctx, statements) -> Candidate:
    doc = ctx.doc
    plan = ctx.plan()
    nodes = [doc.cst_statement(s) for s in statements]
    first = nodes[0]
    inner = [first.with_changes(leading_lines=[]), *nodes[1:]]
    wrapped = cst.With(
        items=[cst.WithItem(doc.parse_expression(f"{ctx.torch}.no_grad()"))],
        body=cst.IndentedBlock(body=inner),
        leading_lines=first.leading_lines,
    )
    plan.replace(first, wrapped)
    for node in nodes[1:]:
        plan.remove(node)
    title = f"Compute {_shown(statements)} once, without a graph (`{ctx.torch}.no_grad()`)"
    return ctx.candidate(title, plan, True, "no-grad")


def _imported_names(tree: ast.AST) -> set[str]:
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }


def _collects_parameters(value: ast.AST) -> bool:
    if isinstance(value, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Set)):
        return True
    return any(
        isinstance(n, ast.Attribute) and n.attr in ("parameters", "named_parameters")
        for n in ast.walk(value)
    )


def _trained_names(tree: ast.AST) -> set[str]:
    """Names that appear in the arguments of an optimizer's construction."""
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = dotted(node.func) or ""
        if callee.rsplit(".", 1)[-1] in _OPTIMIZERS or ".optim." in f".{callee}":
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                out |= {n.id for n in ast.walk(argument) if isinstance(n, ast.Name)}
    # `params = [*encoder.parameters(), ...]` then `Adam(params)`: follow such collections
    # (not a trained tensor's own computation, `image = content.clone().requires_grad_()`).
    for _ in range(3):
        grown = set(out)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id in out for t in node.targets)
                and _collects_parameters(node.value)
            ):
                grown |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
        if grown == out:
            break
        out = grown
    return out

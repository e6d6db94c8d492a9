"""AG001 fixes for graphs kept in containers and on objects.

- a list that collects graph-carrying values: empty it after the backward (one
  episode's log-probabilities), or store detached values in it when it is meant to keep
  them (a replay buffer, a history window);
- state stored on an object (`self.hidden`): detach it where it is stored, or at the
  start of the method when the method still uses the stored value.
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.model import Role
from .common import detach_statement
from .context import Candidate, Context
from .infer import LIST, TENSOR, _match_attribute, dotted, walk_scope


# -- lists that collect graph-carrying values ------------------------------------------
def empty_lists(ctx, carriers) -> list[Candidate]:
    doc = ctx.doc
    freed = ctx.freed_call()
    if freed is None or len(carriers) != 1:
        return []
    name, statement = carriers[0]
    target = appended_list(statement)
    backward = doc.statement_containing(doc.span(freed))
    if target is None or not isinstance(backward, ast.Expr) or backward.value is not freed:
        return []
    if _kept_items(doc, doc.text(target)):
        if _trained_through(ctx, backward, doc.text(target)):
            # `sum(losses).backward()` with `del losses[0]` after it, or a loss built from
            # `logits[i]` (peers that mimic each other's outputs): the items are trained
            # through, so detached ones would not train (torch: "element 0 of tensors does
            # not require grad"), and emptying the list breaks what indexes it. No rewrite
            # is sure; the user picks.
            return []
        return _append_detached(ctx, statement)
    return _clear_after_backward(ctx, doc.text(target), backward)


def _trained_through(ctx, backward: ast.Expr, list_text: str) -> bool:
    """Whether the backward's loss is computed from the list: in the call, or in the
    statements that compute its receiver (`loss = f(logits[i]) ...; loss.backward()`)."""
    from .shared import loss_chain  # shared.py imports the context helpers this uses too

    doc = ctx.doc
    if _mentions(backward, list_text, doc):
        return True
    call = backward.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    chain = loss_chain(ctx, call.func.value, 1, backward.lineno)
    return any(_mentions(statement, list_text, doc) for statement in chain)


def _mentions(node, text, doc) -> bool:
    return any(
        isinstance(n, ast.Name | ast.Attribute) and doc.text(n) == text for n in ast.walk(node)
    )


def _kept_items(doc, list_text) -> bool:
    """A list that is indexed or sampled from (a replay buffer, a history window) keeps items."""
    for node in ast.walk(doc.tree):
        if isinstance(node, ast.Subscript) and doc.text(node.value) == list_text:
            return True
        sampled = isinstance(node, ast.Call) and (dotted(node.func) or "").startswith("random.")
        if sampled and any(doc.text(a) == list_text for a in node.args):
            return True
    return False


def _append_detached(ctx, statement) -> list[Candidate]:
    """`history.append(probs)` -> `history.append(probs.detach())`: keep values, not graphs."""
    doc = ctx.doc
    call = statement.value
    if call.func.attr != "append" or len(call.args) != 1:
        return []
    scope = doc.scope_of(statement)
    item = call.args[0]
    elements = item.elts if isinstance(item, ast.Tuple) else [item]
    plan = ctx.plan()
    changed = []
    for element in elements:
        if ctx.inference.kinds(element, scope) != {TENSOR}:
            continue
        node = doc.cst_expression(element)
        if node is None:
            return []
        text = doc.text(element)
        simple = isinstance(element, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
        detached = f"{text}.detach()" if simple else f"({text}).detach()"
        plan.replace(node, doc.parse_expression(detached))
        changed.append(f"`{detached}`")
    if not changed:
        return []
    list_text = doc.text(call.func.value)
    title = f"Keep values, not graphs, in `{list_text}`: append {', '.join(changed)}"
    return [ctx.candidate(title, plan, True, "append-detached")]


def appended_list(statement) -> ast.expr | None:
    call = statement.value if isinstance(statement, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("append", "extend")
    ):
        return call.func.value
    return None


def _clear_after_backward(ctx, list_text, backward) -> list[Candidate]:
    doc = ctx.doc
    scope = doc.scope_of(backward)
    # A list that is sampled from (a replay buffer) or indexed is meant to keep its
    # items; emptying it would change the algorithm, not fix it.
    if _kept_items(doc, list_text):
        return []
    # The list must be reachable under the same name where the backward runs.
    if not any(
        isinstance(n, (ast.Name, ast.Attribute)) and doc.text(n) == list_text
        for n in walk_scope(scope)
    ):
        return []
    backward_cst = doc.cst_statement(backward)
    if backward_cst is None:
        return []
    plan = ctx.plan()
    plan.insert_after(backward_cst, f"{list_text}.clear()\n")
    title = f"Empty `{list_text}` after the backward"
    return [ctx.candidate(title, plan, True, "empty-list")]


# -- state stored on an object ---------------------------------------------------------
def module_state_fixes(ctx: Context) -> list[Candidate]:
    doc = ctx.doc
    steps = ctx.steps(Role.STORED)
    if len(steps) != 1:
        return []
    statement = ctx.statement_for(steps[0].span)
    if statement is None:
        return []
    appended = appended_list(statement)
    if appended is not None:
        freed = ctx.freed_call()
        backward = doc.statement_containing(doc.span(freed)) if freed else None
        if isinstance(backward, ast.Expr) and backward.value is freed:
            return _clear_after_backward(ctx, doc.text(appended), backward)
        return []
    target = _stored_attribute(statement)
    if target is None:
        return []
    text = doc.text(target)
    method = doc.scope_of(statement)
    if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    owner = next((a for a in doc.ancestors(method) if isinstance(a, ast.ClassDef)), None)
    kinds = ctx.inference.attribute_kinds(target.attr, owner)
    if LIST in kinds:
        return []
    reads_after = any(
        isinstance(n, ast.Attribute)
        and isinstance(n.ctx, ast.Load)
        and doc.text(n) == text
        and (n.lineno, n.col_offset) > (statement.end_lineno, statement.end_col_offset)
        for n in walk_scope(method)
    )
    plan = ctx.plan()
    if not reads_after:
        statement_cst = doc.cst_statement(statement)
        # Right after the store the value is what was just stored, never the None
        # it may have started as.
        stored = set()
        for value, path in _match_attribute(statement.targets[0], target.attr, statement.value):
            stored |= ctx.inference.kinds(value, method, 0, path)
        code = detach_statement([(text, stored or kinds)], ctx.torch, set())
        if statement_cst is None or code is None:
            return []
        plan.insert_after(statement_cst, code)
        title = f"Store `{text}` detached, right after it is set"
        return [ctx.candidate(title, plan, True, "detach-stored")]
    # The method goes on using the new state (for this call's loss): detach the state it
    # starts from instead, before its first read.
    reads_before = any(
        isinstance(n, ast.Attribute)
        and isinstance(n.ctx, ast.Load)
        and doc.text(n) == text
        and n.lineno <= statement.lineno
        for n in walk_scope(method)
    )
    method_cst = doc.cst_statement(method)
    code = detach_statement([(text, kinds)], ctx.torch, set())
    if (
        code is None
        or not reads_before
        or method_cst is None
        or not isinstance(getattr(method_cst, "body", None), cst.IndentedBlock)
    ):
        return []
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        first = doc.cst_statement(body[0])  # after the docstring
        if first is None:
            return []
        plan.insert_after(first, code)
    else:
        plan.insert_at_top(method_cst, code)
    title = f"Detach `{text}` at the start of `{method.name}()`"
    return [ctx.candidate(title, plan, True, "detach-stored-on-entry")]


def _stored_attribute(statement) -> ast.Attribute | None:
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    stored = [e for e in elements if isinstance(e, ast.Attribute)]
    return stored[0] if len(stored) == 1 else None

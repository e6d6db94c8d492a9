"""Lists known per element where the code lines their indices up with a loop.

`outputs = []; for net in nets: outputs.append(net(x))` and then
`for i in range(n): loss = f(outputs[i]); loss.backward()`: iteration i reads the element
that iteration i of the first loop appended. The abstract interpreter runs each loop in two
passes (pass 1: the first iteration, pass 2: any later one), so pass k of the reading loop
sees the elements of pass k of the appending loop, and not those of the other pass: peer
j's backward does not free peer i's output (Deep-Mutual-Learning's trainer, issue 5 of
chxy95/Deep-Mutual-Learning, is the shape).

Only where nothing else can shift the positions: the index is the reading loop's own
variable over `range(...)` / `enumerate(...)`, and the appending loop's body appends to
that list exactly once, as a statement of its own, and does nothing else to it.
"""

from __future__ import annotations

import ast
import weakref

from .exprs import dotted_name, walk

INDEX_SOURCES = frozenset({"range", "enumerate"})
GROWING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})


def index_loop(index: ast.expr, loops) -> object | None:
    """The enclosing loop frame whose counter `index` is, or None."""
    if not isinstance(index, ast.Name):
        return None
    for frame in reversed(loops):
        node = frame.node
        if not isinstance(node, ast.For) or not isinstance(node.iter, ast.Call):
            continue
        source = node.iter.func
        if not isinstance(source, ast.Name) or source.id not in INDEX_SOURCES:
            continue
        target = node.target
        if source.id == "enumerate":
            if not isinstance(target, ast.Tuple) or not target.elts:
                continue
            target = target.elts[0]
        if isinstance(target, ast.Name) and target.id == index.id:
            return frame
    return None


def appends_once(loop: ast.AST, container: str) -> bool:
    """`loop`'s body appends to `container` in exactly one statement and changes it no other
    way; kept per loop while its tree lives (asked for every origin of every `xs[i]`)."""
    if not isinstance(loop, (ast.For, ast.While)):
        return False
    known = _APPENDS_ONCE.setdefault(loop, {})
    found = known.get(container)
    if found is None:
        found = known[container] = _appends_once(loop, container)
    return found


_APPENDS_ONCE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _appends_once(loop: ast.For | ast.While, container: str) -> bool:
    direct = 0
    for statement in loop.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "append"
            and dotted_name(call.func.value) == container
        ):
            direct += 1
    if direct != 1:
        return False
    changes = 0
    for node in walk(loop):
        if isinstance(node, ast.Attribute) and node.attr in GROWING_METHODS:
            changes += dotted_name(node.value) == container
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                inner = target.value if isinstance(target, ast.Subscript) else target
                if dotted_name(inner) == container:
                    return False
    return changes == 1


def aligned_origins(origins: frozenset, node: ast.Subscript, context: list, loops) -> frozenset:
    """The origins `node` (`xs[i]`) can read in this pass (all of them unless aligned)."""
    container = dotted_name(node.value)
    frame = index_loop(node.slice, loops) if container else None
    if frame is None:
        return origins
    level = next((d for d, p in enumerate(context) if p.loop is frame.node), None)
    if level is None:
        return origins
    here = context[level]
    outer = tuple(context[:level])
    kept = []
    for origin in origins:
        made = origin.context
        if (
            len(made) > level
            and made[:level] == outer
            and made[level].loop is not here.loop
            and made[level].number != here.number
            and appends_once(made[level].loop, container)
        ):
            continue  # appended in the other pass of a loop lined up with this one
        kept.append(origin)
    return origins if len(kept) == len(origins) else frozenset(kept)

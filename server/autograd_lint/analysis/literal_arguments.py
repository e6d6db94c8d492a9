"""Branches a literal argument decides: `f(x, 0)` runs `if index == 0:` and not its `else`.

A function called with a literal for a parameter it never reassigns compares that literal
in its `if`s: `if optimizer_idx == 0:` in a hook a framework calls once per optimizer
with `0`, then `1`; `if mode == "train":` in a helper called with `"eval"`. Joining both
branches there makes each call do what only the other does (a backward the branch of
optimizer 0 issues, run again in the call for optimizer 1). Only a comparison of the bare
parameter with a constant (`==`, `!=`, `is`, `is not`) on ints, strings, booleans or None
is decided, and only for a parameter no statement of the function assigns.
"""

from __future__ import annotations

import ast
import weakref

from .exprs import walk

LITERAL_TYPES = (int, str, bool, type(None))
COMPARISONS = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}


def _assigned(definition: ast.AST) -> frozenset[str]:
    """Names the function's own statements bind (kept while its tree lives)."""
    found = _ASSIGNED.get(definition)
    if found is None:
        found = frozenset(
            node.id
            for node in walk(definition)
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))
        )
        _ASSIGNED[definition] = found
    return found


_ASSIGNED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _literal(node: ast.AST):
    """(True, value) for a constant of a literal type, else (False, None)."""
    if isinstance(node, ast.Constant) and type(node.value) in LITERAL_TYPES:
        return True, node.value
    return False, None


def literal_arguments(definition, call: ast.AST, bound_self: bool) -> dict:
    """Parameter -> the literal `call` passes for it, for parameters never reassigned."""
    if not isinstance(call, ast.Call) or not isinstance(
        definition, ast.FunctionDef | ast.AsyncFunctionDef
    ):
        return {}
    arguments = definition.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if bound_self:
        positional = positional[1:]
    found = {}
    for param, arg in zip(positional, call.args):
        if isinstance(arg, ast.Starred):
            break
        known, value = _literal(arg)
        if known:
            found[param.arg] = value
    names = {p.arg for p in [*positional, *arguments.kwonlyargs]}
    for keyword in call.keywords:
        known, value = _literal(keyword.value)
        if known and keyword.arg in names:
            found[keyword.arg] = value
    if not found:
        return found
    assigned = _assigned(definition)
    return {name: value for name, value in found.items() if name not in assigned}


def decided_by_literal(test: ast.expr, literals: dict) -> bool | None:
    """The value of `param == 0` (and the like) for a parameter bound to a literal; None
    for any other test."""
    if not literals or not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    compare = COMPARISONS.get(type(test.ops[0]))
    left, right = test.left, test.comparators[0]
    if compare is None:
        return None
    if isinstance(right, ast.Name):
        left, right = right, left
    if not isinstance(left, ast.Name) or left.id not in literals:
        return None
    known, value = _literal(right)
    if not known:
        return None
    return bool(compare(literals[left.id], value))

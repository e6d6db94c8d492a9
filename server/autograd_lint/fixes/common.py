"""Pieces the fix strategies share: names, the torch alias, and detach code."""

from __future__ import annotations

import ast

from .infer import NONE, NUMBER, TENSOR, TUPLE, UNKNOWN, dotted


def torch_alias(tree: ast.Module) -> str | None:
    """The name `import torch` is bound to at module level, if any."""
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch":
                    return alias.asname or "torch"
    return None


def names_read(nodes) -> set[str]:
    return {
        n.id
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def names_bound(nodes) -> set[str]:
    out = set()
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in n.names)
    return out


def all_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)
    }


def fresh_name(tree: ast.AST, wanted: str) -> str:
    taken = all_names(tree)
    name, number = wanted, 1
    while name in taken:
        number += 1
        name = f"{wanted}_{number}"
    return name


def is_backward_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "backward"
    )


def detach_value(name: str, kinds: set[str], torch: str | None, keep_leaf: bool) -> str | None:
    """An expression giving `name`'s value cut from its graph (None when not sure how)."""
    tensor = f"{name}.detach().requires_grad_()" if keep_leaf else f"{name}.detach()"
    solid = (kinds - {NONE, NUMBER}) or {UNKNOWN}
    if solid == {TENSOR}:
        return tensor
    elements = f"tuple(t.detach() for t in {name})"
    if solid == {TUPLE}:
        return elements
    if solid <= {TENSOR, TUPLE, UNKNOWN} and solid:
        test = f"isinstance({name}, {torch}.Tensor)" if torch else f"hasattr({name}, 'detach')"
        return f"{tensor} if {test} else {elements}"
    return None


def detach_statement(
    names: list[tuple[str, set[str]]], torch: str | None, leaves: set[str]
) -> str | None:
    """Code that rebinds every name to its detached value, guarded where it may be None."""
    plain, guarded = [], []
    for name, kinds in names:
        value = detach_value(name, kinds, torch, name in leaves)
        if value is None:
            return None
        if NUMBER in kinds:
            if torch is None:
                return None
            guarded.append(f"if isinstance({name}, {torch}.Tensor):\n    {name} = {value}\n")
        elif NONE in kinds:
            guarded.append(f"if {name} is not None:\n    {name} = {value}\n")
        else:
            plain.append((name, value))
    lines = []
    if len(plain) > 1 and all(" if " not in value for _, value in plain):
        targets = ", ".join(name for name, _ in plain)
        values = ", ".join(value for _, value in plain)
        lines.append(f"{targets} = {values}\n")
    else:
        lines.extend(f"{name} = {value}\n" for name, value in plain)
    return "".join(lines + guarded)


def requires_grad_leaves(tree: ast.AST, names: set[str]) -> set[str]:
    """Names bound somewhere to a tensor made with requires_grad=True or as a Parameter."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        targets = {t.id for t in node.targets if isinstance(t, ast.Name)} & names
        if not targets:
            continue
        call = node.value
        callee = dotted(call.func) or ""
        leafy = callee.endswith("Parameter") or (
            isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_"
        )
        leafy = leafy or any(
            k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value
            for k in call.keywords
        )
        if leafy:
            found |= targets
    return found

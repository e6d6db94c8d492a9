"""The units the checkers walk: function bodies and the module's own code.

A scope is a list of statements in execution order, each with the block that holds
it, so evidence spans come out in file coordinates even when the module's code is
spread over many blocks. Nested functions and methods are scopes of their own.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..blocks import Block
from ..exprs import dotted_name  # noqa: F401 - the checkers import it from here
from ..model import Finding, Role, Step
from ..syntax_facts import grad_mode_of
from ..torch_api import last_part  # noqa: F401 - the checkers import it from here

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass
class Scope:
    kind: str  # "module", "function"
    items: list[tuple[Block, ast.stmt]]
    text: str
    node: ast.AST | None = None  # the FunctionDef of a function scope
    # Set for methods: the class body, where `self.<attr> = nn.ReLU(inplace=True)` lives.
    owner: ast.ClassDef | None = None
    no_grad: bool = False  # decorated with @torch.no_grad() / @torch.inference_mode()
    names: dict = field(default_factory=dict)


def is_no_grad_context(expr: ast.AST) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`: one
    rule with the interpreter's, so `inference_mode(False)` is not one here either."""
    return grad_mode_of(expr) is False


def source_text(block: Block, node: ast.AST) -> str:
    first = node.lineno - block.parsed_start
    last = (getattr(node, "end_lineno", None) or node.lineno) - block.parsed_start + 1
    return "\n".join(block.lines[max(first, 0) : last])


def function_scopes(block: Block, wanted) -> list[Scope]:
    """The block's functions and methods (nested ones too) whose text passes
    `wanted(text)`, the cheap filter every checker starts with. The module's own code is
    one scope over all blocks: the caller assembles it."""
    scopes: list[Scope] = []
    if block.error is not None or not block.statements or not wanted(block.text):
        return scopes
    for statement in block.statements:
        if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
            _collect_definitions(block, statement, None, wanted, scopes)
            continue
        for inner in _nested_definitions(statement):
            _collect_definitions(block, inner, None, wanted, scopes)
    return scopes


def _collect_definitions(block, node, owner, wanted, scopes) -> None:
    if isinstance(node, ast.ClassDef):
        for statement in node.body:
            if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
                _collect_definitions(block, statement, node, wanted, scopes)
        return
    text = source_text(block, node)
    if not wanted(text):
        return
    no_grad = any(is_no_grad_context(d) for d in node.decorator_list)
    scopes.append(Scope("function", [(block, s) for s in node.body], text, node, owner, no_grad))
    for statement in node.body:
        for inner in _nested_definitions(statement):
            _collect_definitions(block, inner, None, wanted, scopes)


# Where statements hold statements; definitions are statements, so the walk for them
# need not enter expressions (most of a function's nodes).
STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _nested_definitions(statement: ast.stmt):
    """Functions and classes defined inside a function body (not inside those)."""
    todo = [statement]
    while todo:
        node = todo.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            yield node
            continue
        for name in STATEMENT_FIELDS:
            todo.extend(getattr(node, name, None) or ())


def step(block: Block, node: ast.AST, message: str, role: Role = Role.NOTE, name=None) -> Step:
    return Step(block.span_of(node), message, role, name)


def finding(code, message, block, node, steps, kind, path="", **extra):
    from ...rules import severity_of  # late: the rule registry imports the analysis package

    return Finding(
        code,
        severity_of(code, kind),
        message,
        block.span_of(node),
        tuple(steps),
        kind=kind,
        path=path,
        extra=extra,
    )


def short(node: ast.AST, limit: int = 40) -> str:
    try:
        text = " ".join(ast.unparse(node).split())
    except Exception:  # noqa: BLE001 - partial code: a label is optional
        return "this expression"
    return text if len(text) <= limit else text[: limit - 1] + "…"

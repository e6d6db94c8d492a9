"""What a strategy gets (the finding, the parsed document) and what it gives back."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property

from ..analysis.model import Finding, Role, Span
from .common import torch_alias
from .document import Document, Plan
from .infer import Inference, walk_scope


@dataclass
class Candidate:
    title: str
    new_source: str
    preferred: bool
    strategy: str


class Context:
    def __init__(self, document: Document, finding: Finding):
        self.doc = document
        self.finding = finding

    @cached_property
    def inference(self) -> Inference:
        return Inference(self.doc)

    @cached_property
    def torch(self) -> str | None:
        return torch_alias(self.doc.tree)

    def plan(self) -> Plan:
        return Plan(self.doc)

    def candidate(self, title, plan_or_source, preferred, strategy) -> Candidate:
        source = plan_or_source if isinstance(plan_or_source, str) else plan_or_source.new_source()
        return Candidate(title, source, preferred, strategy)

    # -- evidence as syntax -------------------------------------------------------------
    def steps(self, role: Role) -> list:
        """The finding's steps of `role`; none at all if any of them lies in another file
        (a fix built from part of the evidence would be a wrong fix)."""
        steps = self.finding.steps(role)
        home = self.finding.path
        if any(step.path and step.path != home for step in steps):
            return []
        return steps

    def step_statement(self, role: Role) -> ast.stmt | None:
        steps = self.finding.steps(role)
        return self.statement_for(steps[-1].span) if steps else None

    def statement_for(self, span: Span) -> ast.stmt | None:
        return self.doc.statement_at(span.start.line, span.start.column) or (
            self.doc.statement_containing(span)
        )

    def call_at(self, span: Span) -> ast.Call | None:
        node = self.doc.expression_at(span)
        return node if isinstance(node, ast.Call) else None

    def loop(self) -> ast.For | ast.While | None:
        span = self.finding.loop
        if span is None:
            return None
        node = self.doc.statement_at(span.start.line, span.start.column)
        return node if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else None

    def fails_call(self) -> ast.Call | None:
        steps = self.steps(Role.FAILS)
        return self.call_at(steps[-1].span) if steps else None

    def freed_call(self) -> ast.Call | None:
        steps = self.steps(Role.FREED)
        return self.call_at(steps[-1].span) if steps else None


def is_inside(doc: Document, node: ast.AST, container: ast.AST) -> bool:
    return node is container or any(a is container for a in doc.ancestors(node))


def bound_before(doc: Document, name: str, loop: ast.stmt) -> bool:
    """Whether `name` has a value when the loop starts (a parameter, a global, an earlier binding)."""
    scope = doc.scope_of(loop)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if name in {a.arg for a in every}:
            return True
    bindings = [
        node
        for node in walk_scope(scope)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
    ]
    if not bindings and not isinstance(scope, ast.Module):
        # A global read by the function.
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
            for top in doc.tree.body
            for n in ast.walk(top)
        )
    return any(node.lineno < loop.lineno and not is_inside(doc, node, loop) for node in bindings)


def detach_name_arguments(doc: Document, plan: Plan, calls, name: str) -> list:
    """In each call, replace the bare argument `name` by `name.detach()`.

    Returns the calls it changed, or None when an argument cannot be located in the CST.
    """
    changed = []
    for call in calls:
        for argument in call.args:
            if isinstance(argument, ast.Name) and argument.id == name:
                node = doc.cst_expression(argument)
                if node is None:
                    return None
                plan.replace(node, doc.parse_expression(f"{name}.detach()"))
                changed.append(call)
    return changed

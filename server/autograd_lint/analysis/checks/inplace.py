"""AG007 inplace-modifies-saved-tensor: an in-place op on a tensor a later backward needs.

One walk over a scope in straight-line order (loop bodies once, `if` branches forked and
joined). Each name holds an abstract tensor: whether it is known to be a tensor, whether it
requires grad (no / maybe / yes), the storage it shares with its views, and the saving ops
in its history. Ops from `inplace_table` record what they save; an in-place op marks the
records on its storage; a backward whose value has such a record in its history is the
failure, reported at the in-place op. Only facts the code shows count: a save needs an
operand known to require grad, and the backward must be reached from the saving op.
"""

from __future__ import annotations

import ast
from itertools import count

from .. import roles
from .. import torch_api as api
from ..exprs import walk
from ..model import Role
from ..name_fallback import OPTIMIZER_ROLE
from ..values import TENSOR
from . import inplace_table as table
from .constructors import Constructed
from .inplace_exprs import ExpressionMixin
from .inplace_values import NO, YES, Saved, State, Val, join, tensor_kind
from .scopes import (
    FUNCTIONS,
    Scope,
    dotted_name,
    finding,
    is_no_grad_context,
    last_part,
    short,
    step,
)

CODE = "AG007"
INPLACE_AUG = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod)
ERROR_TEXT = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"  # noqa: E501
)


def optimized_models(constructed: list[Constructed]) -> dict[str, frozenset[str]]:
    """Optimizer -> the models whose parameters it steps (last parts), from the file's
    optimizer constructors (constructors.py)."""
    found: dict[str, set[str]] = {}
    for built in constructed:
        if built.kind == OPTIMIZER_ROLE and built.models:
            found.setdefault(last_part(built.path), set()).update(map(last_part, built.models))
    return {name: frozenset(models) for name, models in found.items()}


def submodule_assignments(owner: ast.ClassDef, aliases: dict[str, str]) -> list:
    """`self.x = nn.Y(...)` assignments in the class's methods (the constructor resolved
    through the file's imports), found once per class and imports."""
    key = tuple(sorted(aliases.items()))
    memo = getattr(owner, "_autograd_lint_submodules", None)
    found = memo[1] if memo is not None and memo[0] == key else None
    if found is None:
        found = []
        for method in owner.body:
            if not isinstance(method, FUNCTIONS):
                continue
            for node in walk(method):
                if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                    continue
                target = dotted_name(node.targets[0]) or ""
                constructor = roles.qualify(dotted_name(node.value.func) or "", aliases)
                if target.startswith("self.") and constructor.startswith("torch.nn."):
                    found.append((target, node.value))
        owner._autograd_lint_submodules = (key, found)  # the tree is ours: a memo on it
    return found


def wanted(text: str) -> bool:
    return ("backward" in text or "autograd" in text) and (
        "_(" in text or "=" in text or "inplace" in text
    )


class InplaceChecker(ExpressionMixin):
    def __init__(
        self, scope: Scope, path: str, optimizers: dict | None = None, aliases: dict | None = None
    ):
        self.scope = scope
        self.aliases = aliases or {}  # the file's imports: local name -> dotted name
        self.optimizers = optimizers or {}
        self.stepped_models = frozenset().union(*self.optimizers.values())
        self.weights: dict[str, int] = {}  # model name -> the storage its weights stand for
        self.path = path
        self.block = None
        self.state = State()
        self.saves: dict[int, list[Saved]] = {}  # op id -> what it saved
        self.by_storage: dict[int, list[Saved]] = {}
        self.ids = count(1)
        self.no_grad = 1 if scope.no_grad else 0
        self.findings = []
        self.reported: set[int] = set()
        # Only `nn.X(inplace=True)` submodules matter, and their text says so.
        if scope.owner is not None and scope.items and "inplace" in scope.items[0][0].text:
            self.seed_submodules(scope.owner)

    def run(self) -> list:
        for block, statement in self.scope.items:
            self.block = block
            self.stmt(statement)
        return self.findings

    def seed_submodules(self, owner: ast.ClassDef) -> None:
        """`self.act = nn.ReLU(inplace=True)` in any method makes `self.act(x)` in-place."""
        for target, value in submodule_assignments(owner, self.aliases):
            self.state.env[target] = self.ev(value)

    # -- statements --------------------------------------------------------------------
    def stmt(self, node: ast.stmt) -> None:
        handler = self._st_handlers[node.__class__]
        if handler is not None:
            handler(self, node)
        elif not isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)

    def body(self, statements) -> None:
        for statement in statements:
            self.stmt(statement)

    def st_Assign(self, node: ast.Assign) -> None:
        value = self.ev(node.value)
        for target in node.targets:
            self.bind(target, value)

    def st_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind(node.target, self.ev(node.value))

    def st_AugAssign(self, node: ast.AugAssign) -> None:
        right = self.ev(node.value)
        target = node.target
        if isinstance(target, ast.Subscript):
            base = self.ev(target.value)
            self.ev(target.slice)
            if base.tensor:
                self.modified(base, node, short(target.value))
            return
        current = self.ev(target)
        if current.tensor and isinstance(node.op, INPLACE_AUG):
            self.modified(current, node, short(target))
            self.bind(target, current.with_deps(current.deps | right.deps))
        else:
            self.bind(target, self.arith(node.op, current, right, node))

    def st_If(self, node: ast.If) -> None:
        self.ev(node.test)
        before = self.state.copy()
        self.body(node.body)
        after_body = self.state
        self.state = before
        self.body(node.orelse)
        self.state = join(after_body, self.state)

    def st_For(self, node) -> None:
        iterable = self.ev(node.iter)
        element = Val(kind=TENSOR, grad=iterable.grad, storage=iterable.storage,
                      deps=iterable.deps) if iterable.tensor else self.element_of(node.iter)  # fmt: skip
        self.bind(node.target, element)
        self.body(node.body)
        self.body(node.orelse)

    st_AsyncFor = st_For

    def st_While(self, node: ast.While) -> None:
        self.ev(node.test)
        self.body(node.body)
        self.body(node.orelse)

    def st_With(self, node) -> None:
        quiet = 0
        for item in node.items:
            if is_no_grad_context(item.context_expr):
                quiet += 1
            else:
                self.ev(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, self.fresh(Val()))
        self.no_grad += quiet
        self.body(node.body)
        self.no_grad -= quiet

    st_AsyncWith = st_With

    def st_Try(self, node) -> None:
        self.body(node.body)
        for handler in node.handlers:
            self.body(handler.body)
        self.body(node.orelse)
        self.body(node.finalbody)

    st_TryStar = st_Try

    # -- binding -----------------------------------------------------------------------
    def bind(self, target: ast.AST, value: Val) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            items = value.items
            for index, element in enumerate(target.elts):
                if items is not None and len(items) == len(target.elts):
                    self.bind(element, items[index])
                else:
                    part = Val(kind=tensor_kind(value.tensor), grad=value.grad, deps=value.deps)
                    self.bind(element, self.fresh(part))
            return
        if isinstance(target, ast.Starred):
            self.bind(target.value, self.fresh(Val(grad=value.grad, deps=value.deps)))
            return
        if isinstance(target, ast.Subscript):
            base = self.ev(target.value)
            self.ev(target.slice)
            if base.tensor:
                self.modified(base, target, short(target.value))
            return
        key = dotted_name(target)
        if key is not None:
            if not value.storage and value.grad != NO:
                value = self.fresh(value)
            self.state.env[key] = value
            prefix = key + "."
            for stale in [k for k in self.state.env if k.startswith(prefix)]:
                del self.state.env[stale]

    def fresh(self, value: Val) -> Val:
        return value.with_storage(frozenset({next(self.ids)}))

    def element_of(self, iterable: ast.AST) -> Val:
        func = iterable.func if isinstance(iterable, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in api.PARAMETER_METHODS:
            return self.fresh(Val(kind=TENSOR, grad=YES))
        return self.fresh(Val())

    # -- expressions -------------------------------------------------------------------
    def apply(self, info: table.OpInfo, node, operands) -> Val:
        """Result of a table op; records what it saves when its result requires grad."""
        values = [value for value, _ in operands]
        grad = max(v.grad for v in values)
        deps = frozenset().union(*(v.deps for v in values))
        result = self.fresh(Val(kind=TENSOR, grad=NO if self.no_grad else grad, deps=deps))
        if self.no_grad or grad != YES:
            return result
        saved = []
        if info.output:
            saved.append((result, "its result"))
        first, first_node = operands[0]
        if info.inputs == "self" and first.grad == YES:
            saved.append((first, f"`{short(first_node)}`"))
        elif info.inputs in ("cross", "div") and len(operands) > 1:
            second, second_node = operands[1]
            if second.grad == YES and (first.tensor or first.grad != NO):
                saved.append((first, f"`{short(first_node)}`"))
            needs_second = first.grad == YES or (info.inputs == "div" and second.grad == YES)
            if needs_second and (second.tensor or second.grad != NO):
                saved.append((second, f"`{short(second_node)}`"))
        if not saved:
            return result
        return result.with_deps(deps | {self.record(node, saved)})

    def record(self, node: ast.AST, saved: list[tuple[Val, str]]) -> int:
        """A new saving op; returns its id for the histories of the values it makes."""
        op = next(self.ids)
        records = []
        for value, what in saved:
            for storage in value.storage:
                record = Saved(self.block, node, what, storage)
                records.append(record)
                self.by_storage.setdefault(storage, []).append(record)
        self.saves[op] = records
        return op

    def inplace_op(self, op_name: str, value: Val, node: ast.AST, label: str) -> Val:
        """`x.relu_()`, `F.relu(x, inplace=True)`, `nn.ReLU(inplace=True)(x)`: a modification,
        and for ops that save their result, a save of `x` itself (the result is `x`)."""
        self.modified(value, node, label)
        info = table.BY_NAME.get(op_name)
        if info is None or not info.output or self.no_grad or value.grad != YES:
            return value
        return value.with_deps(value.deps | {self.record(node, [(value, "its result")])})

    def modified(self, value: Val, node: ast.AST, label: str) -> None:
        for storage in value.storage:
            for record in self.by_storage.get(storage, ()):
                if not record.freed and record.modified is None:
                    record.modified = (self.block, node, label)

    def backward(self, node: ast.AST, value: Val, keywords: dict) -> None:
        retain = keywords.get("retain_graph")
        keep = retain is not None and not (isinstance(retain, ast.Constant) and not retain.value)
        for op in sorted(value.deps):
            for record in self.saves.get(op, ()):
                if record.freed:
                    continue
                if record.modified is not None:
                    self.report(record, node)
                if not keep:
                    record.freed = True

    def report(self, record: Saved, backward_node: ast.AST) -> None:
        mod_block, mod_node, label = record.modified
        if id(mod_node) in self.reported:
            return
        self.reported.add(id(mod_node))
        op_line = record.block.span_of(record.op_node).start.line
        back_line = self.block.span_of(backward_node).start.line
        op_text = short(record.op_node)
        if record.what.endswith("weights"):
            kind, changed = "optimizer-step", f"`{short(mod_node)}` updates {label} in place"
        else:
            kind = "saved-output" if record.what == "its result" else "saved-input"
            changed = f"in-place modification of `{label}`"
        message = (
            f"{changed}, which `{op_text}` (line {op_line}) saved for backward: the backward "
            f'at line {back_line} will raise "{ERROR_TEXT}"'
        )
        saves = f"`{op_text}` saves {record.what} for backward"
        fails = f"this backward needs the saved tensor and raises: {ERROR_TEXT}"
        steps = [
            step(record.block, record.op_node, saves, Role.BUILT, label),
            step(mod_block, mod_node, f"{label} modified in place", Role.NOTE, label),
            step(self.block, backward_node, fails, Role.FAILS),
        ]
        self.findings.append(finding(CODE, message, mod_block, mod_node, steps, kind, self.path))


def check(scope: Scope, path: str = "", optimizers: dict | None = None, aliases=None) -> list:
    return InplaceChecker(scope, path, optimizers, aliases).run()

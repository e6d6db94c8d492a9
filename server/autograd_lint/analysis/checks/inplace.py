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
from dataclasses import dataclass, field, replace
from itertools import count

from .. import torch_api as api
from ..model import Role, Severity
from . import inplace_table as table
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
NO, MAYBE, YES = 0, 1, 2
TORCH_PREFIXES = ("torch.", "F.", "nn.", "functional.")
INPLACE_AUG = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod)
AS_IS_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "type_as", "type"})
ERROR_TEXT = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"  # noqa: E501
)


def wanted(text: str) -> bool:
    return ("backward" in text or "autograd" in text) and (
        "_(" in text or "=" in text or "inplace" in text
    )


@dataclass(frozen=True, slots=True)
class Val:
    tensor: bool = False
    grad: int = MAYBE
    storage: frozenset = frozenset()  # empty: writes to it are invisible (`.data`, numbers)
    deps: frozenset = frozenset()  # ids of saving ops in its history
    module: str | None = None  # "inplace:ReLU", "model", or an op name for nn.Sigmoid() & co.
    items: tuple | None = None  # elements of a tuple/list literal


CONST = Val(grad=NO)


@dataclass(eq=False)
class Saved:
    block: object
    op_node: ast.AST
    what: str  # "its result" or "`a`"
    storage: int
    modified: tuple | None = None  # (block, node, label) of the first in-place op
    freed: bool = False


@dataclass
class State:
    env: dict = field(default_factory=dict)

    def copy(self) -> State:
        return State(dict(self.env))


class InplaceChecker:
    def __init__(self, scope: Scope, path: str):
        self.scope = scope
        self.path = path
        self.block = None
        self.state = State()
        self.saves: dict[int, list[Saved]] = {}  # op id -> what it saved
        self.by_storage: dict[int, list[Saved]] = {}
        self.ids = count(1)
        self.no_grad = 1 if scope.no_grad else 0
        self.findings = []
        self.reported: set[int] = set()
        if scope.owner is not None:
            self.seed_submodules(scope.owner)

    def run(self) -> list:
        for block, statement in self.scope.items:
            self.block = block
            self.stmt(statement)
        return self.findings

    def seed_submodules(self, owner: ast.ClassDef) -> None:
        """`self.act = nn.ReLU(inplace=True)` in any method makes `self.act(x)` in-place."""
        for method in owner.body:
            if not isinstance(method, FUNCTIONS):
                continue
            for node in ast.walk(method):
                if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                    continue
                target = dotted_name(node.targets[0]) or ""
                constructor = dotted_name(node.value.func) or ""
                if target.startswith("self.") and constructor.startswith(("nn.", "torch.nn.")):
                    self.state.env[target] = self.ev(node.value)

    # -- statements --------------------------------------------------------------------
    def stmt(self, node: ast.stmt) -> None:
        handler = getattr(self, "st_" + node.__class__.__name__, None)
        if handler is not None:
            handler(node)
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
            self.bind(target, replace(current, deps=current.deps | right.deps))
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
        element = Val(tensor=True, grad=iterable.grad, storage=iterable.storage,
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
                    part = Val(tensor=value.tensor, grad=value.grad, deps=value.deps)
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
        return replace(value, storage=frozenset({next(self.ids)}))

    def element_of(self, iterable: ast.AST) -> Val:
        func = iterable.func if isinstance(iterable, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in api.PARAMETER_METHODS:
            return self.fresh(Val(tensor=True, grad=YES))
        return self.fresh(Val())

    # -- expressions -------------------------------------------------------------------
    def ev(self, node: ast.AST) -> Val:
        handler = getattr(self, "ev_" + node.__class__.__name__, None)
        if handler is not None:
            return handler(node)
        grad, deps = NO, frozenset()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                value = self.ev(child)
                grad, deps = max(grad, value.grad), deps | value.deps
        return Val(grad=grad, deps=deps)

    def ev_NamedExpr(self, node: ast.NamedExpr) -> Val:
        value = self.ev(node.value)
        self.bind(node.target, value)
        return value

    def ev_Constant(self, node) -> Val:
        return CONST

    def ev_Name(self, node: ast.Name) -> Val:
        return self.lookup(node.id)

    def lookup(self, key: str) -> Val:
        value = self.state.env.get(key)
        if value is None:
            value = self.fresh(Val())
            self.state.env[key] = value
        return value

    def ev_Attribute(self, node: ast.Attribute) -> Val:
        key = dotted_name(node)
        if key is not None and key in self.state.env:
            return self.state.env[key]
        base = self.ev(node.value)
        attr = node.attr
        if attr == "data":  # writes through .data bypass the version counter (AG006)
            return Val(tensor=base.tensor, grad=NO)
        if attr in ("T", "mT", "H", "mH") and base.tensor:
            return replace(base, module=None, items=None)
        if attr in ("weight", "bias"):
            value = self.fresh(Val(tensor=True, grad=YES))
        elif attr == "grad":
            value = self.fresh(Val(tensor=True, grad=NO))
        elif attr in api.CUT_ATTRIBUTES:
            return CONST
        else:
            value = self.fresh(Val(grad=MAYBE if base.grad != NO else NO))
        if key is not None:
            self.state.env[key] = value
        return value

    def ev_Subscript(self, node: ast.Subscript) -> Val:
        base = self.ev(node.value)
        self.ev(node.slice)
        if base.tensor:
            return Val(tensor=True, grad=base.grad, storage=base.storage, deps=base.deps)
        return self.fresh(Val(grad=base.grad, deps=base.deps))

    def ev_Tuple(self, node) -> Val:
        items = tuple(self.ev(e) for e in node.elts)
        grad = max((v.grad for v in items), default=NO)
        deps = frozenset().union(*(v.deps for v in items))
        return Val(grad=grad, deps=deps, items=items)

    ev_List = ev_Tuple

    def ev_BinOp(self, node: ast.BinOp) -> Val:
        left, right = self.ev(node.left), self.ev(node.right)
        return self.arith(node.op, left, right, node)

    def ev_UnaryOp(self, node: ast.UnaryOp) -> Val:
        value = self.ev(node.operand)
        if isinstance(node.op, ast.Not):
            return CONST
        return self.fresh(Val(tensor=value.tensor, grad=value.grad, deps=value.deps))

    def ev_Compare(self, node: ast.Compare) -> Val:
        for child in (node.left, *node.comparators):
            self.ev(child)
        return CONST

    def ev_Lambda(self, node) -> Val:
        return CONST

    def ev_IfExp(self, node: ast.IfExp) -> Val:
        self.ev(node.test)
        return join_vals(self.ev(node.body), self.ev(node.orelse))

    def arith(self, op: ast.operator, left: Val, right: Val, node: ast.AST) -> Val:
        info = table.OPERATORS.get(type(op))
        if info is None:
            grad = max(left.grad, right.grad)
            tensor = left.tensor or right.tensor
            return self.fresh(Val(tensor=tensor, grad=grad, deps=left.deps | right.deps))
        left_node = getattr(node, "left", None) or getattr(node, "target", node)
        right_node = getattr(node, "right", None) or getattr(node, "value", node)
        return self.apply(info, node, [(left, left_node), (right, right_node)])

    def ev_Call(self, node: ast.Call) -> Val:
        func = node.func
        name = dotted_name(func) or ""
        args = [self.ev(a) for a in node.args]
        keywords = {k.arg: k.value for k in node.keywords}
        for keyword in node.keywords:
            self.ev(keyword.value)
        operands = list(zip(args, node.args))
        tail = last_part(name) if name else (func.attr if isinstance(func, ast.Attribute) else "")
        if name.startswith(TORCH_PREFIXES) or name in ("F", "torch"):
            return self.torch_call(node, name, tail, operands, keywords)
        if isinstance(func, ast.Attribute):
            receiver = self.ev(func.value)
            if receiver.module is None and (receiver.tensor or tail.endswith("_")):
                return self.method_call(node, func, receiver, operands, keywords)
            if tail == "backward":  # `loss.backward()`, `accelerator.backward(loss)`
                use_argument = not receiver.deps and args and args[0].deps
                self.backward(node, args[0] if use_argument else receiver, keywords)
                return CONST
        callee = self.ev(func) if not isinstance(func, ast.Attribute) else self.state.env.get(name)
        if callee is not None and callee.module is not None and operands:
            return self.module_call(node, callee.module, operands)
        grad = max((v.grad for v in args), default=MAYBE)
        deps = frozenset().union(*(v.deps for v in args)) if args else frozenset()
        if api.MODELISH_NAME.match(last_part(name) or "-"):
            return self.fresh(Val(tensor=True, grad=YES, deps=deps))
        return self.fresh(Val(grad=YES if grad == YES else MAYBE, deps=deps))

    def torch_call(self, node, name, tail, operands, keywords) -> Val:
        args = [value for value, _ in operands]
        if name in ("torch.autograd.backward", "torch.autograd.grad") and args:
            self.backward(node, args[0], keywords)
            return CONST
        inplace = keywords.get("inplace")
        constructed = name.startswith(("nn.", "torch.nn.")) and tail[:1].isupper()
        if constructed:
            if isinstance(inplace, ast.Constant) and inplace.value is True:
                return Val(module=f"inplace:{tail}") if tail in table.INPLACE_MODULES else CONST
            if tail in table.MODULES:
                return Val(module=table.MODULES[tail].op)
            if tail == "Parameter":
                return self.fresh(Val(tensor=True, grad=YES))
            return Val(module="model")
        if tail[:1].isupper():  # optimizers, schedulers, datasets: not tensors
            return Val()
        if args and (
            (isinstance(inplace, ast.Constant) and inplace.value is True)
            or (tail.endswith("_") and not tail.startswith("_"))
        ):
            return self.inplace_op(tail.rstrip("_"), args[0], node, short(operands[0][1]))
        if tail in api.FACTORIES:
            wants = keywords.get("requires_grad")
            grad = YES if isinstance(wants, ast.Constant) and wants.value is True else NO
            return self.fresh(Val(tensor=True, grad=grad))
        info = table.BY_NAME.get(tail)
        if info is not None and operands:
            return self.apply(info, node, operands)
        grad = max((v.grad for v in args), default=NO)
        deps = frozenset().union(*(v.deps for v in args)) if args else frozenset()
        return self.fresh(Val(tensor=True, grad=grad, deps=deps))

    def method_call(self, node, func, receiver: Val, operands, keywords) -> Val:
        method = func.attr
        if method == "backward":
            self.backward(node, receiver, keywords)
            return CONST
        if method.endswith("_") and not method.startswith("__"):
            if method == "requires_grad_":
                return replace(receiver, grad=YES)
            if method in table.NOT_MODIFYING:
                return receiver
            return self.inplace_op(method[:-1], receiver, node, short(func.value))
        if method in table.VIEW_METHODS or method in AS_IS_METHODS:
            if method == "detach":
                return Val(tensor=True, grad=NO, storage=receiver.storage)
            return Val(
                tensor=True, grad=receiver.grad, storage=receiver.storage, deps=receiver.deps
            )
        if method in api.CUT_METHODS:
            return CONST
        info = table.METHODS.get(method)
        if info is not None:
            return self.apply(info, node, [(receiver, func.value), *operands])
        grad = max([receiver.grad, *(v.grad for v, _ in operands)])
        deps = receiver.deps.union(*(v.deps for v, _ in operands))
        return self.fresh(Val(tensor=True, grad=grad, deps=deps))

    def module_call(self, node, module: str, operands) -> Val:
        first, first_node = operands[0]
        if module.startswith("inplace:"):
            op_name = table.MODULES[module[8:]].op if module[8:] in table.MODULES else ""
            return self.inplace_op(op_name, first, node, short(first_node))
        if module == "model":
            deps = frozenset().union(*(v.deps for v, _ in operands))
            return self.fresh(Val(tensor=True, grad=YES, deps=deps))
        return self.apply(table.BY_NAME[module], node, operands[:1])

    # -- saving, modifying, backward ----------------------------------------------------
    def apply(self, info: table.OpInfo, node, operands) -> Val:
        """Result of a table op; records what it saves when its result requires grad."""
        values = [value for value, _ in operands]
        grad = max(v.grad for v in values)
        deps = frozenset().union(*(v.deps for v in values))
        result = self.fresh(Val(tensor=True, grad=NO if self.no_grad else grad, deps=deps))
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
        return replace(result, deps=deps | {self.record(node, saved)})

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
        return replace(value, deps=value.deps | {self.record(node, [(value, "its result")])})

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
        op_span = record.block.span_of(record.op_node)
        back_span = self.block.span_of(backward_node)
        op_text = short(record.op_node)
        message = (
            f"in-place modification of `{label}`, which `{op_text}` (line {op_span.start.line}) "
            f"saved for backward: the backward at line {back_span.start.line} will raise "
            f'"{ERROR_TEXT}"'
        )
        kind = "saved-output" if record.what == "its result" else "saved-input"
        steps = [
            step(
                record.block,
                record.op_node,
                f"`{op_text}` saves {record.what} for backward",
                Role.BUILT,
                label,
            ),  # fmt: skip
            step(mod_block, mod_node, f"`{label}` is modified in place", Role.NOTE, label),
            step(
                self.block,
                backward_node,
                f"this backward needs the saved tensor and raises: {ERROR_TEXT}",
                Role.FAILS,
            ),  # fmt: skip
        ]
        self.findings.append(
            finding(CODE, Severity.ERROR, message, mod_block, mod_node, steps, kind, self.path)
        )


def join_vals(a: Val, b: Val) -> Val:
    if a == b:
        return a
    return Val(
        tensor=a.tensor and b.tensor,
        grad=a.grad if a.grad == b.grad else MAYBE,
        storage=a.storage | b.storage,
        deps=a.deps | b.deps,
        module=a.module if a.module == b.module else None,
    )


def join(a: State, b: State) -> State:
    env = dict(a.env)
    for key, value in b.env.items():
        mine = env.get(key)
        env[key] = value if mine is None else join_vals(mine, value)
    return State(env)


def check(scope: Scope, path: str = "") -> list:
    return InplaceChecker(scope, path).run()

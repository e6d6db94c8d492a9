"""AG007's expression rules: what each expression's value is, and the calls that save,
modify or run a backward. One handler per node type (`ev_<NodeName>`); the checker in
`inplace.py` supplies the state, `apply`, `inplace_op`, `modified` and `backward`.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from .. import roles
from .. import torch_api as api
from ..exprs import HandlerTable
from ..name_fallback import OPTIMIZER_ROLE
from ..values import MODULE, OPTIMIZER, TENSOR
from . import inplace_table as table
from .constructors import constructor_kind
from .inplace_values import CONST, MAYBE, NO, YES, Val, join_vals, tensor_kind
from .scopes import dotted_name, last_part, short

# Conversions that return the tensor itself when nothing changes and a copy otherwise
# (another device or dtype): treated as copies, so a change to one never flags the other.
CONVERSIONS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "type_as", "type"})


class ExpressionMixin:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._ev_handlers = HandlerTable(cls, "ev_")
        cls._st_handlers = HandlerTable(cls, "st_")  # statements: see InplaceChecker

    def ev(self, node: ast.AST) -> Val:
        handler = self._ev_handlers[node.__class__]
        if handler is not None:
            return handler(self, node)
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
            return Val(kind=tensor_kind(base.tensor), grad=NO)
        if attr in ("T", "mT", "H", "mH") and base.tensor:
            return replace(base, module=None, items=None)
        if attr in ("weight", "bias"):
            value = self.fresh(Val(kind=TENSOR, grad=YES))
        elif attr == "grad":
            value = self.fresh(Val(kind=TENSOR, grad=NO))
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
            return Val(kind=TENSOR, grad=base.grad, storage=base.storage, deps=base.deps)
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
        return self.fresh(Val(kind=tensor_kind(value.tensor), grad=value.grad, deps=value.deps))

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
            return self.fresh(Val(kind=tensor_kind(tensor), grad=grad, deps=left.deps | right.deps))
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
        if self.optimizers and tail == "step" and name.endswith(".step"):
            stepped = name[: -len(".step")]
            argument = dotted_name(node.args[0]) if node.args else None
            if argument is not None and last_part(argument) in self.optimizers:
                stepped = argument  # `scaler.step(opt)`: what it steps is an optimizer built so
            models = self.optimizers.get(last_part(stepped))
            if models:
                return self.optimizer_step(node, models)
        if self.stepped_models and last_part(name or "-") in self.stepped_models:
            return self.model_call(node, last_part(name), operands)
        qualified = roles.qualify(name, self.aliases) if name else ""
        if qualified.startswith("torch."):
            return self.torch_call(node, qualified, tail, operands, keywords)
        if isinstance(func, ast.Attribute):
            receiver = self.ev(func.value)
            if receiver.kind != MODULE and (receiver.tensor or tail.endswith("_")):
                return self.method_call(node, func, receiver, operands, keywords)
            if tail == "backward":  # `loss.backward()`, `accelerator.backward(loss)`
                use_argument = not receiver.deps and args and args[0].deps
                self.backward(node, args[0] if use_argument else receiver, keywords)
                return CONST
        callee = self.ev(func) if not isinstance(func, ast.Attribute) else self.state.env.get(name)
        if callee is not None and callee.kind == MODULE and operands:
            return self.module_call(node, callee.module, operands)
        grad = max((v.grad for v in args), default=MAYBE)
        deps = frozenset().union(*(v.deps for v in args)) if args else frozenset()
        if roles.is_module(roles.scope_roles(self.scope), name or None):
            return self.fresh(Val(kind=TENSOR, grad=YES, deps=deps))
        return self.fresh(Val(grad=YES if grad == YES else MAYBE, deps=deps))

    def torch_call(self, node, name, tail, operands, keywords) -> Val:
        args = [value for value, _ in operands]
        if name in ("torch.autograd.backward", "torch.autograd.grad") and args:
            self.backward(node, args[0], keywords)
            return CONST
        inplace = keywords.get("inplace")
        constructed = name.startswith("torch.nn.") and tail[:1].isupper()
        if constructed:
            if isinstance(inplace, ast.Constant) and inplace.value is True:
                if tail in table.INPLACE_MODULES:
                    return Val(kind=MODULE, module=f"inplace:{tail}")
                return CONST
            if tail in table.MODULES:
                return Val(kind=MODULE, module=table.MODULES[tail].op)
            if tail == "Parameter":
                return self.fresh(Val(kind=TENSOR, grad=YES))
            return Val(kind=MODULE)
        if tail[:1].isupper():  # optimizers, schedulers, datasets: not tensors
            return Val(kind=OPTIMIZER if constructor_kind(name, {}) == OPTIMIZER_ROLE else None)
        if args and (
            (isinstance(inplace, ast.Constant) and inplace.value is True)
            or (tail.endswith("_") and not tail.startswith("_"))
        ):
            return self.inplace_op(tail.rstrip("_"), args[0], node, short(operands[0][1]))
        if tail in api.FACTORIES:
            wants = keywords.get("requires_grad")
            grad = YES if isinstance(wants, ast.Constant) and wants.value is True else NO
            return self.fresh(Val(kind=TENSOR, grad=grad))
        info = table.BY_NAME.get(tail)
        if info is not None and operands:
            return self.apply(info, node, operands)
        grad = max((v.grad for v in args), default=NO)
        deps = frozenset().union(*(v.deps for v in args)) if args else frozenset()
        return self.fresh(Val(kind=TENSOR, grad=grad, deps=deps))

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
        if method in CONVERSIONS:
            return self.fresh(Val(kind=TENSOR, grad=receiver.grad, deps=receiver.deps))
        if method in table.VIEW_METHODS:
            if method == "detach":
                return Val(kind=TENSOR, grad=NO, storage=receiver.storage)
            return Val(
                kind=TENSOR, grad=receiver.grad, storage=receiver.storage, deps=receiver.deps
            )
        if method in api.CUT_METHODS:
            return CONST
        info = table.METHODS.get(method)
        if info is not None:
            return self.apply(info, node, [(receiver, func.value), *operands])
        grad = max([receiver.grad, *(v.grad for v, _ in operands)])
        deps = receiver.deps.union(*(v.deps for v, _ in operands))
        return self.fresh(Val(kind=TENSOR, grad=grad, deps=deps))

    def module_call(self, node, module: str | None, operands) -> Val:
        """A call of a MODULE value: `module` is the op it applies, or None for a model."""
        first, first_node = operands[0]
        if module is not None and module.startswith("inplace:"):
            op_name = table.MODULES[module[8:]].op if module[8:] in table.MODULES else ""
            return self.inplace_op(op_name, first, node, short(first_node))
        if module is None:
            deps = frozenset().union(*(v.deps for v, _ in operands))
            return self.fresh(Val(kind=TENSOR, grad=YES, deps=deps))
        return self.apply(table.BY_NAME[module], node, operands[:1])

    def model_call(self, node, model: str, operands) -> Val:
        """A model an optimizer of the file steps: its layers save their weights for the
        input's gradient when the input requires grad."""
        deps = frozenset().union(*(v.deps for v, _ in operands)) if operands else frozenset()
        result = self.fresh(Val(kind=TENSOR, grad=YES, deps=deps))
        if self.no_grad or not any(v.grad == YES for v, _ in operands):
            return result
        weights = Val(storage=frozenset({self.weights_of(model)}))
        return result.with_deps(deps | {self.record(node, [(weights, f"`{model}`'s weights")])})

    def optimizer_step(self, node, models) -> Val:
        for model in sorted(models):
            weights = Val(storage=frozenset({self.weights_of(model)}))
            self.modified(weights, node, f"{model}'s weights")
        return CONST

    def weights_of(self, model: str) -> int:
        if model not in self.weights:
            self.weights[model] = next(self.ids)
        return self.weights[model]

    # -- saving, modifying, backward ----------------------------------------------------

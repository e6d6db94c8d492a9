"""What AG005 asks of the file and of a scope: which functions clear gradients (judged by
their bodies), which paths are optimizers and grad scalers (their constructors, their use,
the name fallback last).

A function the file defines clears if its body calls `zero_grad()`, sets or deletes a
`.grad`, zeroes one in place, or calls another function of the file that clears. Only
functions whose block text shows clearing, or that name such a function, are candidates;
a candidate is walked only when a checked scope calls it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .. import name_fallback, roles
from .. import torch_api as api
from ..exprs import walk
from .constructors import Constructed
from .scopes import FUNCTIONS, STATEMENT_FIELDS, Scope, dotted_name, last_part

CLEARS_TEXT = re.compile(
    r"zero_grad|\.grad\s*=|\.grad(\.data)?\.(zero_|fill_|mul_)|del\s+\S+\.grad"
)


@dataclass(frozen=True)
class FileFacts:
    """What the whole file says: the optimizers and grad scalers its constructors build
    (constructors.py), the functions it defines, and which of those clear gradients."""

    optimizers: frozenset[str]  # last parts: `opt_g` for `self.opt_g = Adam(...)`
    scalers: frozenset[str] = frozenset()  # last parts: `scaler` for `scaler = GradScaler()`
    defined: frozenset[str] = frozenset()  # every function and method name of the file
    # Functions in blocks whose text mentions clearing: name -> ((block key, node), ...).
    # Whether one really clears is decided, by walking it, only when a checked scope
    # calls it: most never are, and the walks were a tenth of a first analysis.
    # A block's text says nothing of clearing yet its functions may clear through calls
    # of candidates it names: (the identifiers in its text, ((name, (key, node)), ...)).
    others: tuple = field(default=(), compare=False)
    candidates: dict = field(default_factory=dict, compare=False)
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def clears(self, name: str) -> bool:
        """Whether a function of the file called `name` clears gradients: its body says,
        directly or through another such function it calls (`reset()` calling
        `self.zero_all()`)."""
        found = self._memo.get(name)
        if found is None:
            self._memo[name] = False  # a recursive call settles nothing
            functions = self.candidates.get(name, ())
            found = self._memo[name] = any(clears_body(node, self) for _, node in functions)
        return found

    def defines(self, name: str) -> bool:
        return name in self.defined

    def clearing_key(self, names: frozenset[str]) -> tuple:
        """What decides, for a scope naming `names`, which of its calls clear: the
        candidates it names, with the blocks that define them."""
        named = sorted(self.candidates.keys() & names)
        found = tuple((name, tuple(key for key, _ in self.candidates[name])) for name in named)
        return found, self.defined & names

    @classmethod
    def merge(cls, parts: list[FileFacts]) -> FileFacts:
        candidates: dict = {}
        for part in parts:
            for name, functions in part.candidates.items():
                candidates[name] = candidates.get(name, ()) + functions
        others = [other for part in parts for other in part.others]
        grew = bool(candidates)
        while grew:  # `tidy()` calls `wipe()`, which calls `zero_grad()`: each round a link
            grew = False
            for mentions, functions in others:
                if functions and not mentions.isdisjoint(candidates):
                    for name, found in functions:
                        if found not in candidates.get(name, ()):
                            candidates[name] = candidates.get(name, ()) + (found,)
                            grew = True
        optimizers = frozenset().union(*(p.optimizers for p in parts))
        scalers = frozenset().union(*(p.scalers for p in parts))
        defined = frozenset().union(*(p.defined for p in parts))
        return cls(optimizers, scalers, defined, candidates=candidates)


def file_facts(blocks, constructed: list[Constructed] = ()) -> FileFacts:
    """`constructed`: what the blocks' constructors build (constructors.block_constructed)."""
    candidates, defined, others = {}, set(), []
    optimizers = {last_part(c.path) for c in constructed if c.kind == name_fallback.OPTIMIZER_ROLE}
    scalers = {last_part(c.path) for c in constructed if c.kind == name_fallback.SCALER_ROLE}
    for block in blocks:
        if block.error is not None:
            continue
        clearing = CLEARS_TEXT.search(block.text)
        functions = []
        for function in _definitions(block.statements):
            defined.add(function.name)
            found = (block.key, function)
            if clearing:
                candidates[function.name] = candidates.get(function.name, ()) + (found,)
            else:
                functions.append((function.name, found))
        if functions:
            others.append((block.names, tuple(functions)))
    return FileFacts(
        frozenset(optimizers), frozenset(scalers), frozenset(defined), tuple(others), candidates
    )


def _definitions(statements):
    """Functions defined in these statements, at any depth of statement nesting."""
    todo = list(statements)
    while todo:
        node = todo.pop()
        if isinstance(node, FUNCTIONS):
            yield node
        for name in STATEMENT_FIELDS:
            todo.extend(getattr(node, name, ()) or ())


def clears_body(function: ast.AST, facts: FileFacts | None = None) -> bool:
    """Whether the body clears gradients: `zero_grad()`, `p.grad = None`, `p.grad.zero_()`,
    or (with `facts`) a call of another function of the file that does."""
    # Depth first in source order: the clearing call usually opens the training loop,
    # so this stops after a few statements where a breadth-first walk sees nearly all.
    stack = [function]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and (
                func.attr == "zero_grad" or clears_grad_tensor(node)
            ):
                return True
            function = file_function(func) if facts is not None else None
            if function is not None and facts.clears(function):
                return True
        elif isinstance(node, (ast.Assign, ast.Delete)) and assigns_grad(node):
            return True
        for name in reversed(node._fields):
            value = getattr(node, name, None)
            if value.__class__ is list:
                stack.extend([item for item in reversed(value) if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                stack.append(value)
    return False


# Methods of torch's modules and optimizers: a call of one is torch's, even where the file
# also defines a function of that name (`model.train()` beside a `def train()`).
TORCH_METHODS = roles.MODULE_METHODS | api.MODULE_PLUMBING


def file_function(func: ast.AST) -> str | None:
    """The name of the file's function a call may run: `f()`, `obj.f()` (by its last
    part); None for a call of a torch module or optimizer method."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and func.attr not in TORCH_METHODS:
        return func.attr
    return None


def assigns_grad(node: ast.Assign | ast.Delete) -> bool:
    """`p.grad = None`, `p.grad = g`, `del p.grad`."""
    return any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets)


def clears_grad_tensor(call: ast.Call) -> bool:
    """`p.grad.zero_()`, `p.grad.data.zero_()`, `p.grad.fill_(0)`, `p.grad.mul_(0)`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("fill_", "mul_"):
        zero = call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
        if not zero:
            return False  # `p.grad.mul_(scale)` rescales, it does not clear
    elif func.attr != "zero_":
        return False
    receiver = func.value
    if isinstance(receiver, ast.Attribute) and receiver.attr == "data":
        receiver = receiver.value
    return isinstance(receiver, ast.Attribute) and receiver.attr == "grad"


def is_optimizer(receiver: str, facts: FileFacts, evidence) -> bool:
    """Built by a torch.optim constructor in the file, or used as one: `step()` and
    `zero_grad()`, `param_groups` (roles.py) -- never because of its name."""
    if last_part(receiver) in facts.optimizers:
        return True
    role = evidence.role(receiver, free=True) if evidence is not None else None
    if role is not None:
        return role == roles.OPTIMIZER_ROLE
    return name_fallback.fallback_role(receiver, roles.OPTIMIZER_ROLE)  # nothing else is known


def scaler_uses(scope: Scope | None) -> frozenset[str]:
    """Paths used as an AMP grad scaler in the scope (for a method, in its class's
    methods): `X.scale(loss).backward()`, `X.unscale_(optimizer)`."""
    if scope is None:
        return frozenset()
    found = scope.__dict__.get("_scaler_uses")
    if found is not None:
        return found
    if scope.owner is not None:
        statements = [s for s in scope.owner.body if isinstance(s, FUNCTIONS)]
    else:
        statements = [statement for _, statement in scope.items]
    paths = set()
    for statement in statements:
        for node in walk(statement):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            func = node.func
            scaled = func.value  # `X.scale(loss)` in `X.scale(loss).backward()`
            if func.attr == "backward" and isinstance(scaled, ast.Call):
                inner = scaled.func
                if isinstance(inner, ast.Attribute) and inner.attr == "scale" and scaled.args:
                    paths.add(dotted_name(inner.value))
            elif func.attr == "unscale_" and node.args:
                paths.add(dotted_name(func.value))
    found = scope.__dict__["_scaler_uses"] = frozenset(p for p in paths if p is not None)
    return found

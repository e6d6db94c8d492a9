"""What a library's nn.Module keeps on `self` from one call of `forward` to the next.

Given a class as its chain of definitions (the class, then its bases, each with the file
it is in: `library_summaries.py` finds them in the user's environment), this walks
`forward` in statement order, following calls of the object's own methods (and of
attributes bound to them, `self.state_function = self._base_sub`) to a depth, and
answers which attributes of `self` are

- assigned (or filled: `self._memories[name] = value`, `self.buffer.append(value)`)
  with a value computed from
  forward's inputs ("input") or from the module's own parameters and submodules
  ("module": attributes forward reads but never assigns, calls of submodules), and
- read by forward before any assignment in the same call has surely happened,

so the value one call leaves is what the next call starts from: state that crosses
calls (snntorch's `self.mem`, spikingjelly's `self._memories`, torch_geometric_temporal's
EvolveGCN `self.weight`, evolved by a GRU from a parameter). Attributes only read
(weights, options) or assigned before every read (scratch values) are not state;
`super().method()` runs the next definition along the chain. The walk is
bounded by a depth of method calls and a budget of visited nodes; a summary cut short
says so (`complete` False), and what it found so far still holds.

`method_stores` answers, for any method (`__init__`, `push`, `set_train_data`), which
attributes of self it stores each of its arguments in.

Pure: stdlib ast only.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_DEPTH = 6  # method calls followed from forward
MAX_NODES = 20_000  # expression and statement nodes visited, all calls together
PASSES = 3  # what an attribute holds is known from the pass before
# What a value carries: bits. INPUT: an input without a name (`*args`, `**kwargs`); each
# of forward's named parameters has a bit of its own from FIRST_PARAMETER on, so what a
# kept attribute is computed from is known by name.
INPUT, MODULE = 1, 2
FIRST_PARAMETER, NAMED_PARAMETERS = 4, 24
ANY_INPUT = ~MODULE
ORIGINS = {INPUT: "input", MODULE: "module"}
# Attributes of a tensor that are data, whatever the tensor carries.
NO_HISTORY_ATTRIBUTES = frozenset(
    {"dtype", "device", "shape", "ndim", "is_cuda", "requires_grad", "layout", "is_sparse"}
)
# Calls whose result carries no history whatever their arguments (shapes, fresh tensors).
NO_HISTORY_CALLS = frozenset(
    {"detach", "item", "tolist", "numel", "size", "dim", "zeros_like", "ones_like",
     "empty_like", "full_like", "zeros", "ones", "empty", "full", "isinstance", "len",
     "hasattr", "type", "super"}
)  # fmt: skip


# Methods that put their arguments into the container they are called on.
CONTAINER_STORES = frozenset(
    {"append", "appendleft", "extend", "insert", "add", "update", "setdefault", "put",
     "push"}
)  # fmt: skip


@dataclass(frozen=True)
class KeptAttribute:
    name: str
    origin: str  # "input": computed from forward's inputs; "module": from its parameters
    path: str  # where it is assigned
    line: int
    read_path: str  # where forward reads it before assigning it
    read_line: int
    # Computed from the module's parameters too (origin "input" or not): it carries a
    # graph whenever they require grad, whatever the inputs are (integer ids carry none).
    with_module: bool = False
    # The forward parameters it is computed from ("*": its *args or **kwargs).
    inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassState:
    qualified_name: str
    kept: tuple[KeptAttribute, ...] = ()
    complete: bool = True
    parameters: tuple[str, ...] = ()  # forward's positional parameters, self left out

    def to_json(self) -> dict:
        return {
            "qualified_name": self.qualified_name,
            "kept": [{**vars(k), "inputs": list(k.inputs)} for k in self.kept],
            "complete": self.complete,
            "parameters": list(self.parameters),
        }

    @classmethod
    def from_json(cls, data: dict) -> ClassState:
        kept = tuple(
            KeptAttribute(**{**item, "inputs": tuple(item.get("inputs", ()))})
            for item in data["kept"]
        )
        parameters = tuple(data.get("parameters", ()))
        return cls(data["qualified_name"], kept, bool(data["complete"]), parameters)


Definition = tuple[int, str, ast.FunctionDef]  # index along the chain, path, function


@dataclass
class _Walk:
    definitions: dict[str, list[Definition]]  # by method name, in chain order
    aliases: dict[str, set[str]]  # self.<attr> bound to self.<method>
    options: frozenset[str]  # attributes __init__ sets to plain values: no parameter
    max_depth: int
    max_nodes: int
    nodes: int = 0
    complete: bool = True
    held: dict[str, int] = field(default_factory=dict)  # what each attribute carries
    ever_assigned: set[str] = field(default_factory=set)
    assigned: dict[str, tuple[int, str, int]] = field(default_factory=dict)  # bits, where
    read_first: dict[str, tuple[str, int]] = field(default_factory=dict)
    surely: set[str] = field(default_factory=set)  # surely assigned in this call so far
    stack: list[tuple[str, int]] = field(default_factory=list)
    classes: dict[str, int] = field(default_factory=dict)  # chain index by class name


def _prepare(chain, max_depth: int, max_nodes: int) -> _Walk:
    definitions: dict[str, list[Definition]] = {}
    for index, (path, node) in enumerate(chain):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                definitions.setdefault(item.name, []).append((index, path, item))
    aliases: dict[str, set[str]] = {}
    for found in definitions.values():
        for sub in ast.walk(found[0][2]):
            if isinstance(sub, ast.Assign) and _self_method(sub.value) in definitions:
                for target in sub.targets:
                    if _self_attribute(target):
                        aliases.setdefault(target.attr, set()).add(sub.value.attr)
    walk = _Walk(definitions, aliases, _options(definitions), max_depth, max_nodes)
    for index, (_, node) in enumerate(chain):
        walk.classes.setdefault(node.name, index)
    return walk


def _options(definitions: dict[str, list[Definition]]) -> frozenset[str]:
    """Attributes every __init__ of the chain sets only to plain values (constants, its
    own parameters, operations on them: `self.improved = improved`): options, which
    carry no graph, unlike parameters and submodules (`self.lin = Linear(...)`)."""
    plain: set[str] = set()
    other: set[str] = set()
    for _, _, function in definitions.get("__init__", ()):
        arguments = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        for node in ast.walk(function):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            simple = all(
                isinstance(n, (ast.Constant, ast.expr_context, ast.operator, ast.boolop,
                               ast.cmpop, ast.unaryop, ast.BinOp, ast.BoolOp, ast.Compare,
                               ast.UnaryOp, ast.Tuple, ast.List))
                or (isinstance(n, ast.Name) and n.id in arguments)
                for n in ast.walk(node.value)
            )  # fmt: skip
            for target in targets:
                if _self_attribute(target):
                    (plain if simple else other).add(target.attr)
    return frozenset(plain - other)


def forward_state(
    qualified_name: str,
    chain: Sequence[tuple[str, ast.ClassDef]],
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> ClassState:
    """The state `forward` keeps, for a class given as [(path, ClassDef)] in MRO order."""
    walk = _prepare(chain, max_depth, max_nodes)
    if "forward" not in walk.definitions:
        return ClassState(qualified_name)
    forward = walk.definitions["forward"][0][2]
    parameters = tuple(a.arg for a in (*forward.args.posonlyargs, *forward.args.args))[1:]
    named = [*parameters, *(a.arg for a in forward.args.kwonlyargs)][:NAMED_PARAMETERS]
    # A first walk only learns which attributes forward's calls assign (the others are
    # the module's parameters and options); then what each holds is found pass by pass.
    _call(walk, "forward", None, 0, -1)
    walk.held = {}
    for _ in range(PASSES):
        walk.assigned, walk.read_first, walk.surely = {}, {}, set()
        _call(walk, "forward", None, 0, -1)
        for name, (bits, _, _) in walk.assigned.items():
            walk.held[name] = walk.held.get(name, 0) | bits

    def inputs(bits: int) -> tuple[str, ...]:
        found = [p for i, p in enumerate(named) if bits & (FIRST_PARAMETER << i)]
        return (*found, "*") if bits & INPUT else tuple(found)

    kept = tuple(
        KeptAttribute(name, ORIGINS[INPUT if bits & ANY_INPUT else MODULE], path, line,
                      *walk.read_first[name], bool(bits & MODULE), inputs(bits))
        for name, (bits, path, line) in sorted(walk.assigned.items())
        if name in walk.read_first
    )  # fmt: skip
    return ClassState(qualified_name, kept, walk.complete, parameters)


def method_stores(
    chain: Sequence[tuple[str, ast.ClassDef]],
    method: str,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> tuple[dict[str, tuple[str, ...]], bool]:
    """Which attributes of self a method stores its arguments in (assigned, or put into a
    container: `self.buffer.append(x)`), by parameter: ({"train_targets":
    ("train_targets",)}, complete). Positional parameters only; self left out."""
    walk = _prepare(chain, max_depth, max_nodes)
    found = walk.definitions.get(method)
    if not found:
        return {}, True
    function = found[0][2]
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][1:]
    stores: dict[str, list[str]] = {}
    # `*models` (gpytorch's IndependentModelList keeps them in a ModuleList) is "*".
    rest = ["*"] if function.args.vararg is not None else []
    for parameter in [*parameters, *rest]:
        walk.assigned, walk.read_first, walk.surely = {}, {}, set()
        arguments = [INPUT if p == parameter else 0 for p in parameters]
        if parameter == "*":
            arguments.append(INPUT)
        _call(walk, method, arguments, 0, -1)
        for name, (bits, _, _) in walk.assigned.items():
            if bits & ANY_INPUT:
                stores.setdefault(name, []).append(parameter)
    return {name: tuple(found) for name, found in sorted(stores.items())}, walk.complete


def method_parameters(chain: Sequence[tuple[str, ast.ClassDef]], method: str) -> tuple[str, ...]:
    """The parameters a call of the method binds by position (self left out), then "*"
    for its `*args`, then its keyword-only ones: how a call's arguments line up."""
    found = _prepare(chain, 0, 0).definitions.get(method)
    if not found:
        return ()
    arguments = found[0][2].args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)][1:]
    rest = ["*"] if arguments.vararg is not None else []
    return (*positional, *rest, *(a.arg for a in arguments.kwonlyargs))


def _self_attribute(node) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _self_method(node) -> str | None:
    return node.attr if _self_attribute(node) else None


def _super_method(node) -> str | None:
    """`super().name` (the zero-argument form)."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "super"
    ):
        return node.attr
    return None


class _Scope:
    """One method's locals: what each name carries; what its result carries."""

    def __init__(self, path: str, index: int, names: dict[str, int]):
        self.path = path
        self.index = index  # of the class along the chain: where super() looks next
        self.names = names
        self.returns = 0


def _call(walk: _Walk, name: str, arguments, depth: int, after: int) -> int:
    """Walk the first definition of a method after chain index `after`; what it returns."""
    found = next((d for d in walk.definitions.get(name, ()) if d[0] > after), None)
    if found is None:
        return 0
    index, path, function = found
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][1:]
    names: dict[str, int] = {}
    if arguments is None:  # forward itself: every parameter is input, each its own bit
        everything = [*parameters, *(a.arg for a in function.args.kwonlyargs)]
        names = {
            p: FIRST_PARAMETER << i if i < NAMED_PARAMETERS else INPUT
            for i, p in enumerate(everything)
        }
        for extra in (function.args.vararg, function.args.kwarg):
            if extra is not None:
                names[extra.arg] = INPUT
    else:
        names = {p: bits for p, bits in zip(parameters, arguments) if bits}
        rest = 0
        for bits in arguments[len(parameters) :]:
            rest |= bits
        if rest and function.args.vararg is not None:
            names[function.args.vararg.arg] = rest
    walk.stack.append((name, index))
    scope = _Scope(path, index, names)
    try:
        _block(walk, scope, function.body, depth)
    finally:
        walk.stack.pop()
    return scope.returns


def _block(walk: _Walk, scope: _Scope, statements, depth: int) -> None:
    for statement in statements:
        if not _spend(walk):
            return
        _statement(walk, scope, statement, depth)


def _statement(walk: _Walk, scope: _Scope, node, depth: int) -> None:
    if isinstance(node, ast.Assign):
        bits = _expr(walk, scope, node.value, depth)
        for target in node.targets:
            _store(walk, scope, target, bits, node.lineno, depth)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        bits = _expr(walk, scope, node.value, depth)
        if isinstance(node, ast.AugAssign):
            bits |= _expr(walk, scope, node.target, depth)
        _store(walk, scope, node.target, bits, node.lineno, depth)
    elif isinstance(node, ast.Return):
        scope.returns |= _expr(walk, scope, node.value, depth)
    elif isinstance(node, ast.If):
        _expr(walk, scope, node.test, depth)
        before = set(walk.surely)
        _block(walk, scope, node.body, depth)
        after_body, walk.surely = walk.surely, before
        _block(walk, scope, node.orelse, depth)
        walk.surely = after_body & walk.surely  # surely assigned on both branches
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        if isinstance(node, ast.While):
            _expr(walk, scope, node.test, depth)
        else:
            bits = _expr(walk, scope, node.iter, depth)
            _store(walk, scope, node.target, bits, node.lineno, depth)
        before = set(walk.surely)
        _block(walk, scope, node.body, depth)  # may run no time: assigns nothing surely
        _block(walk, scope, node.orelse, depth)
        walk.surely = before
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            _expr(walk, scope, item.context_expr, depth)
        _block(walk, scope, node.body, depth)
    elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        before = set(walk.surely)
        _block(walk, scope, node.body, depth)
        for handler in node.handlers:
            _block(walk, scope, handler.body, depth)
        _block(walk, scope, node.orelse, depth)
        walk.surely = before
        _block(walk, scope, node.finalbody, depth)
    elif isinstance(node, ast.Expr):
        _expr(walk, scope, node.value, depth)
    # Other statements (nested definitions, raise, assert, pass...) keep no state.


def _store(walk: _Walk, scope: _Scope, target, bits: int, line: int, depth: int) -> None:
    if isinstance(target, ast.Name):
        scope.names[target.id] = bits
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _store(walk, scope, element, bits, line, depth)
    elif isinstance(target, ast.Starred):
        _store(walk, scope, target.value, bits, line, depth)
    elif _self_attribute(target):
        walk.ever_assigned.add(target.attr)
        _record(walk, scope, target.attr, bits, line)
        walk.surely.add(target.attr)
    elif isinstance(target, ast.Subscript) and _self_attribute(target.value):
        # self.memories[key] = value: the container keeps the value (no rebinding).
        _expr(walk, scope, target.slice, depth)
        walk.ever_assigned.add(target.value.attr)
        _record(walk, scope, target.value.attr, bits, line)


def _record(walk: _Walk, scope: _Scope, name: str, bits: int, line: int) -> None:
    if not bits:
        return
    old = walk.assigned.get(name)
    if old is None:
        walk.assigned[name] = (bits, scope.path, line)
    elif bits & ~old[0]:
        walk.assigned[name] = (old[0] | bits, old[1], old[2])


def _expr(walk: _Walk, scope: _Scope, node, depth: int) -> int:
    """What the expression's value carries; records reads of self."""
    if node is None or not _spend(walk):
        return 0
    if isinstance(node, ast.Name):
        return scope.names.get(node.id, 0)
    if _self_attribute(node):
        name = node.attr
        if name in walk.definitions:
            return 0  # a bound method, not state
        if name not in walk.surely:
            walk.read_first.setdefault(name, (scope.path, node.lineno))
        if name not in walk.ever_assigned:
            # A parameter or submodule of the module; an option set in __init__ carries none.
            return 0 if name in walk.options else MODULE
        bits = walk.held.get(name, 0)
        current = walk.assigned.get(name)
        return bits | (current[0] if current else 0)
    if isinstance(node, ast.Call):
        return _call_expr(walk, scope, node, depth)
    if isinstance(node, (ast.Lambda, ast.Constant)):
        return 0
    if isinstance(node, ast.Attribute) and node.attr in NO_HISTORY_ATTRIBUTES:
        _expr(walk, scope, node.value, depth)  # `x.dtype`: reads x, carries nothing
        return 0
    bits = 0
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            bits |= _expr(walk, scope, child, depth)
        elif isinstance(child, ast.comprehension):
            bits |= _expr(walk, scope, child.iter, depth)
    return bits


def _call_expr(walk: _Walk, scope: _Scope, node: ast.Call, depth: int) -> int:
    arguments = [_expr(walk, scope, a, depth) for a in node.args]
    keywords = {k.arg: _expr(walk, scope, k.value, depth) for k in node.keywords}
    passed = 0
    for bits in (*arguments, *keywords.values()):
        passed |= bits
    function = node.func
    name, after = _self_method(function), -1
    if name is None and _super_method(function) is not None:
        name, after = _super_method(function), scope.index
    if name is None:
        # `ExactGP.__init__(self, train_targets=train_Y)`: a base's method, named by class.
        explicit = _explicit_base(walk, node)
        if explicit is not None:
            name, after = explicit
            arguments = arguments[1:]
    targets = []
    if name is not None:
        if name in walk.definitions:
            targets = [name]
        elif after == -1:
            targets = sorted(walk.aliases.get(name, ()))
    if targets:
        if depth >= walk.max_depth:
            walk.complete = False
            return passed
        carried = 0
        for target in targets:
            called = next((d for d in walk.definitions[target] if d[0] > after), None)
            if called is None:
                continue
            if (target, called[0]) in walk.stack:
                carried |= passed  # recursion: not followed again
                continue
            bound = _bind(called[2], arguments, keywords)
            carried |= _call(walk, target, bound, depth + 1, after)
        return carried
    callee = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    receiver = _expr(walk, scope, function, depth) if isinstance(function, ast.Attribute) else 0
    if callee in CONTAINER_STORES and _self_attribute(getattr(function, "value", None)):
        # self.buffer.append(x): the container attribute keeps what it is given.
        walk.ever_assigned.add(function.value.attr)
        _record(walk, scope, function.value.attr, passed, node.lineno)
    if callee in NO_HISTORY_CALLS:
        return 0
    return receiver | passed


def _explicit_base(walk: _Walk, node: ast.Call) -> tuple[str, int] | None:
    """(method, chain index before the class) for `Base.method(self, ...)` where `Base` is
    a class along the chain: the definition found from that class on."""
    function = node.func
    if not (
        isinstance(function, ast.Attribute)
        and isinstance(function.value, ast.Name)
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "self"
    ):
        return None
    index = walk.classes.get(function.value.id)
    if index is None or function.attr not in walk.definitions:
        return None
    return function.attr, index - 1


def _bind(function: ast.FunctionDef, arguments: list[int], keywords: dict) -> list[int]:
    """Positional bits of a call, keywords placed by parameter name (self left out)."""
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][1:]
    bound = list(arguments) + [0] * max(0, len(parameters) - len(arguments))
    for key, bits in keywords.items():
        if key in parameters:
            bound[parameters.index(key)] |= bits
    return bound


def _spend(walk: _Walk) -> bool:
    walk.nodes += 1
    if walk.nodes > walk.max_nodes:
        walk.complete = False
        return False
    return True

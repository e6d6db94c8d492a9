"""What a variable may hold, roughly: enough to write the right `.detach()` for it.

A fix that detaches a carried RNN state has to know whether the state is one tensor
(`h.detach()`), a tuple like an LSTM's `(h, c)` (each element detached), or may still
be `None` before the first batch (a guard). This looks at every binding of the name in
its scope and follows calls into `torch`, `nn` modules, and classes and functions of
the same file; what a callee is comes from its name qualified through the file's imports
(`roles.qualify`), never from how the user spelled it. Anything it cannot follow is
UNKNOWN, and the fix then writes code that is right for a tensor and a tuple alike.
"""

from __future__ import annotations

import ast

from ..analysis import roles

TENSOR, TUPLE, NONE, LIST, NUMBER, UNKNOWN = "tensor", "tuple", "none", "list", "number", "unknown"
# The "path" of a name bound by a for loop: nothing is known about it.
ITERATED = ("iter",)
CONTAINER = "container"  # a dict or set: no one way to detach what it holds

# Containers whose elements have no one way to be detached.
_CONTAINER_FACTORIES = frozenset(
    {"dict", "set", "collections.defaultdict", "collections.OrderedDict"}
)
# nn modules whose call returns (output, state) and what the state is.
_STATEFUL_OUTPUT = {"LSTM": TUPLE, "GRU": TENSOR, "RNN": TENSOR}
# Cells return the state itself.
_CELLS = {"LSTMCell": TUPLE, "GRUCell": TENSOR, "RNNCell": TENSOR}
_MAX_DEPTH = 24


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class Inference:
    def __init__(self, document):
        self.document = document
        self.tree = document.tree
        self.functions = {
            n.name: n
            for n in self.tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        self.classes = {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}
        self.aliases = roles.statement_aliases(self.tree.body)  # local name -> dotted name
        self._active: set = set()

    # -- names --------------------------------------------------------------------------
    def name_kinds(self, name: str, scope: ast.AST, depth: int = 0) -> set[str]:
        """Kinds of every value bound to `name` in `scope` (or the module, if not local)."""
        key = ("name", name, id(scope))
        if key in self._active or depth > _MAX_DEPTH:
            return set()
        self._active.add(key)
        try:
            return self._name_kinds(name, scope, depth)
        finally:
            self._active.discard(key)

    def _name_kinds(self, name, scope, depth) -> set[str]:
        kinds: set[str] = set()
        bound = False
        for value, path in self.bindings(name, scope):
            bound = True
            kinds |= self.kinds(value, scope, depth + 1, path)
        parameter = None
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parameter = self._parameter_kinds(scope, name, depth)
        if parameter is not None:
            # A parameter the function also rebinds holds the same sort of value
            # (`forward(self, x, hidden)` ... `out, hidden = self.gru(x, hidden)`),
            # unless its default or a call site says more.
            if parameter != {UNKNOWN} or not bound:
                kinds |= parameter
        elif not bound and not isinstance(scope, ast.Module):
            return self.name_kinds(name, self.tree, depth + 1)
        elif not bound:
            return {UNKNOWN}
        # Empty only when every binding leads back here: the others say it all.
        return kinds

    def bindings(self, name: str, scope: ast.AST):
        """(value, path into it) for each assignment to `name` in `scope`."""
        for node in walk_scope(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    yield from _match_target(target, name, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                if isinstance(node.target, ast.Name) and node.target.id == name:
                    value = node.value
                    if isinstance(node, ast.AugAssign):
                        value = ast.BinOp(node.target, node.op, node.value)
                    yield value, ()
            elif isinstance(node, (ast.For, ast.AsyncFor)) and _binds(node.target, name):
                yield ast.Constant(...), ITERATED

    def _parameter_kinds(self, function, name, depth) -> set[str] | None:
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        names = [a.arg for a in positional] + [a.arg for a in arguments.kwonlyargs]
        if name not in names:
            return None
        kinds: set[str] = set()
        defaults = dict(
            zip(
                [a.arg for a in positional][len(positional) - len(arguments.defaults) :],
                arguments.defaults,
            )
        )
        defaults.update(
            (a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d
        )
        known = name in defaults
        if known:
            kinds |= self.kinds(defaults[name], self.tree, depth + 1)
        index = next((i for i, a in enumerate(positional) if a.arg == name), None)
        # What the file's own call sites pass.
        for call in ast.walk(self.tree):
            if not (isinstance(call, ast.Call) and dotted(call.func) == function.name):
                continue
            passed = None
            if index is not None and index < len(call.args):
                passed = call.args[index]
            for keyword in call.keywords:
                if keyword.arg == name:
                    passed = keyword.value
            if passed is not None and not isinstance(passed, ast.Starred):
                known = True
                kinds |= self.kinds(passed, self.document.scope_of(call), depth + 1)
            elif passed is None and name not in defaults:
                kinds.add(UNKNOWN)
        return kinds if known else {UNKNOWN}

    def attribute_kinds(
        self, attribute: str, class_node: ast.ClassDef | None, depth: int = 0
    ) -> set[str]:
        """Kinds of every `self.<attribute> = ...` in the class (or `x.<attribute>` anywhere)."""
        key = ("attribute", attribute, id(class_node))
        if key in self._active or depth > _MAX_DEPTH:
            return set()
        self._active.add(key)
        try:
            kinds: set[str] = set()
            where = class_node if class_node is not None else self.tree
            for node in ast.walk(where):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        for value, path in _match_attribute(target, attribute, node.value):
                            scope = self.document.scope_of(node)
                            kinds |= self.kinds(value, scope, depth + 1, path)
            return kinds or {UNKNOWN}
        finally:
            self._active.discard(key)

    # -- expressions --------------------------------------------------------------------
    def kinds(self, node: ast.AST, scope: ast.AST, depth: int = 0, path=()) -> set[str]:
        """Kinds of `node`, or of the element at `path` inside it."""
        if depth > _MAX_DEPTH or path == ITERATED:
            return {UNKNOWN}
        if path:
            return self._element_kinds(node, scope, depth, path)
        if isinstance(node, ast.Constant):
            if node.value is None:
                return {NONE}
            if isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool):
                return {NUMBER}
            return {UNKNOWN}
        if isinstance(node, ast.Tuple):
            return {TUPLE}
        if isinstance(node, (ast.List, ast.ListComp)):
            return {LIST}
        if isinstance(node, (ast.Dict, ast.DictComp, ast.Set, ast.SetComp)):
            return {CONTAINER}
        if isinstance(node, ast.Name):
            return self.name_kinds(node.id, scope, depth + 1)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = self._class_of_scope(scope) if self._is_receiver(node.value.id, scope) else None
            return self.attribute_kinds(node.attr, owner, depth + 1)
        if isinstance(node, ast.BinOp):
            sides = self.kinds(node.left, scope, depth + 1) | self.kinds(
                node.right, scope, depth + 1
            )
            return {TENSOR} if TENSOR in sides else ({NUMBER} if sides == {NUMBER} else {UNKNOWN})
        if isinstance(node, ast.UnaryOp):
            return self.kinds(node.operand, scope, depth + 1)
        if isinstance(node, ast.Subscript):
            base = self.kinds(node.value, scope, depth + 1)
            return {TENSOR} if base == {TENSOR} else {UNKNOWN}
        if isinstance(node, ast.IfExp):
            return self.kinds(node.body, scope, depth + 1) | self.kinds(
                node.orelse, scope, depth + 1
            )
        if isinstance(node, ast.Call):
            return self._call_kinds(node, scope, depth)
        return {UNKNOWN}

    def _element_kinds(self, node, scope, depth, path) -> set[str]:
        if not path:
            return self.kinds(node, scope, depth + 1)
        index, rest = path[0], path[1:]
        if isinstance(node, ast.Tuple):
            if index < len(node.elts):
                return self._element_kinds(node.elts[index], scope, depth + 1, rest)
            return {UNKNOWN}
        if isinstance(node, ast.Call):
            module = self._module_type(node.func, scope)
            if module in _STATEFUL_OUTPUT:
                # (output, state); an LSTM's state is a tuple of tensors.
                if index == 0:
                    return {TENSOR} if not rest else {UNKNOWN}
                state = _STATEFUL_OUTPUT[module]
                if not rest:
                    return {state}
                return {TENSOR} if state == TUPLE and len(rest) == 1 else {UNKNOWN}
            if module in _CELLS:
                return {TENSOR} if not rest else {UNKNOWN}
            returns = self._returns(node, scope)
            out: set[str] = set()
            for returned in returns:
                out |= self._element_kinds(
                    returned, self._scope_of_return(returned), depth + 1, path
                )
            return out if returns else {UNKNOWN}
        if isinstance(node, ast.Name):
            out = set()
            for value, inner in self.bindings(node.id, scope):
                if inner == ITERATED:
                    out.add(UNKNOWN)
                else:
                    out |= self._element_kinds(value, scope, depth + 1, (*inner, *path))
            return out or {UNKNOWN}
        return {UNKNOWN}

    def _call_kinds(self, call: ast.Call, scope, depth) -> set[str]:
        name = roles.qualify(dotted(call.func) or "", self.aliases)
        if name in _CONTAINER_FACTORIES:
            return {CONTAINER}
        if name.startswith("torch.") and not name.startswith(("torch.nn.", "torch.optim.")):
            return {TENSOR}
        if name.startswith("torch.nn.functional."):
            return {TENSOR}
        if isinstance(call.func, ast.Attribute) and call.func.attr in _TENSOR_METHODS:
            return {TENSOR}
        module = self._module_type(call.func, scope)
        if module is not None:
            if module in _STATEFUL_OUTPUT:
                return {TUPLE}
            if module in _CELLS:
                return {_CELLS[module]}
            return {TENSOR}
        returns = self._returns(call, scope)
        out: set[str] = set()
        for returned in returns:
            out |= self.kinds(returned, self._scope_of_return(returned), depth + 1)
        return out if returns else {UNKNOWN}

    def _module_type(self, func: ast.AST, scope) -> str | None:
        """The nn class behind a callable (`rnn`, `self.lstm`), when the file says."""
        constructor = None
        if isinstance(func, ast.Name):
            for value, index in self.bindings(func.id, scope):
                if index == () and isinstance(value, ast.Call):
                    constructor = value
            if constructor is None and scope is not self.tree:
                for value, index in self.bindings(func.id, self.tree):
                    if index == () and isinstance(value, ast.Call):
                        constructor = value
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = self._class_of_scope(scope) if self._is_receiver(func.value.id, scope) else None
            where = owner if owner is not None else self.tree
            for node in ast.walk(where):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and target.attr == func.attr:
                            if isinstance(node.value, ast.Call):
                                constructor = node.value
                            elif isinstance(node.value, ast.Name) and owner is not None:
                                # `self.model = model` in __init__: what the class is built with.
                                constructor = self._constructor_argument(owner, node, node.value.id)
        if constructor is None:
            return None
        name = roles.qualify(dotted(constructor.func) or "", self.aliases)
        if name.startswith("torch.nn."):
            return name.rsplit(".", 1)[-1]
        return None

    def _constructor_argument(self, owner: ast.ClassDef, assignment, name: str):
        """The `nn.X(...)` passed for `__init__`'s parameter `name` where the class is built."""
        init = self.document.scope_of(assignment)
        if not isinstance(init, ast.FunctionDef) or init.name != "__init__":
            return None
        positional = [a.arg for a in [*init.args.posonlyargs, *init.args.args]][1:]
        index = positional.index(name) if name in positional else None
        for call in ast.walk(self.tree):
            if not (isinstance(call, ast.Call) and dotted(call.func) == owner.name):
                continue
            passed = call.args[index] if index is not None and index < len(call.args) else None
            for keyword in call.keywords:
                if keyword.arg == name:
                    passed = keyword.value
            if isinstance(passed, ast.Call):
                return passed
        return None

    def _returns(self, call: ast.Call, scope) -> list[ast.expr]:
        """Return expressions of the file's own function, method or module class behind `call`."""
        function = None
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.functions:
                function = self.functions[func.id]
            else:
                instance_class = self._instance_class(func.id, scope)
                if instance_class is not None:
                    function = _method(instance_class, "forward")
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = None
            if self._is_receiver(func.value.id, scope):
                owner = self._class_of_scope(scope)
            else:
                owner = self._instance_class(func.value.id, scope)
            if owner is not None:
                function = _method(owner, func.attr)
        if function is None:
            return []
        return [n.value for n in walk_scope(function) if isinstance(n, ast.Return) and n.value]

    def _instance_class(self, name: str, scope) -> ast.ClassDef | None:
        for where in (scope, self.tree):
            for value, index in self.bindings(name, where):
                if index == () and isinstance(value, ast.Call):
                    class_name = dotted(value.func)
                    if class_name in self.classes:
                        return self.classes[class_name]
        return None

    def _is_receiver(self, name: str, scope) -> bool:
        """Whether `name` is the instance a method runs on: the first parameter of the
        method that is (or encloses) `scope`, whatever it is called."""
        for node in (scope, *self.document.ancestors(scope)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                parent = self.document.parents.get(node)
                if isinstance(parent, ast.ClassDef):
                    first = [*node.args.posonlyargs, *node.args.args][:1]
                    return bool(first) and first[0].arg == name
        return False

    def _class_of_scope(self, scope) -> ast.ClassDef | None:
        return next(
            (a for a in self.document.ancestors(scope) if isinstance(a, ast.ClassDef)), None
        )

    def _scope_of_return(self, node: ast.AST) -> ast.AST:
        return self.document.scope_of(node)


_TENSOR_METHODS = frozenset(
    [
        "detach",
        "clone",
        "exp",
        "log",
        "sigmoid",
        "tanh",
        "relu",
        "softmax",
        "log_softmax",
        "sum",
        "mean",
        "float",
        "double",
        "to",
        "cpu",
        "cuda",
        "view",
        "reshape",
        "squeeze",
        "unsqueeze",
        "requires_grad_",
        "abs",
        "pow",
        "sqrt",
        "matmul",
        "mm",
        "t",
        "transpose",
        "permute",
        "contiguous",
        "expand",
        "repeat",
        "index_select",
        "gather",
        "masked_fill",
        "norm",
    ]
)


def walk_scope(scope: ast.AST):
    """Nodes of `scope` without descending into nested functions, classes or lambdas."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _method(class_node: ast.ClassDef, name: str):
    return next(
        (
            n
            for n in class_node.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
        ),
        None,
    )


def _binds(target: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _match_target(target: ast.AST, name: str, value: ast.AST, path=()):
    """Where `name` sits in an assignment target: (value, path of indices into it).

    `out, (h, c) = lstm(x, state)` binds `c` to element 1 of element 1 of the call.
    """
    if isinstance(target, ast.Name):
        if target.id == name:
            yield value, path
    elif isinstance(target, (ast.Tuple, ast.List)):
        for position, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                if _binds(element, name):
                    yield ast.Constant(...), ITERATED
                continue
            if not path and isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                yield from _match_target(element, name, value.elts[position])
            else:
                yield from _match_target(element, name, value, (*path, position))


def _match_attribute(target: ast.AST, attribute: str, value: ast.AST):
    if isinstance(target, ast.Attribute) and target.attr == attribute:
        yield value, ()
    elif isinstance(target, (ast.Tuple, ast.List)):
        for position, element in enumerate(target.elts):
            if isinstance(element, ast.Attribute) and element.attr == attribute:
                if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                    yield value.elts[position], ()
                else:
                    yield value, (position,)

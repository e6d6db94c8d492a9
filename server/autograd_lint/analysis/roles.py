"""What a value is, from how the code uses it: one syntax pass, consulted by every rule.

The interpreter knows most values from their construction (`nn.LSTM(...)`, a local
`nn.Module` subclass, `torch.optim.Adam(...)`). What it cannot see — a function's
parameter, a global of a partial snippet, an object returned by a library
(`from_pretrained`, `accelerator.prepare`), `self.net` set in another file — gets its
role here, from evidence in the code that uses it, never from its spelling:

- a **module**: `.parameters()`, `.named_parameters()`, `.train()`, `.eval()` ... are
  called on it, or it is called and what it returns reaches a `backward()` (the user
  back-propagates through it, so calling it builds a graph: with plain data in, the
  graph can only come from its own parameters);
- an **optimizer**: it has `.param_groups`, or both `.step()` and `.zero_grad()`, or
  `.step(closure)`.

Evidence is keyed by the access path (`model`, `self.net`) within one scope: a
function's body, a class's methods (for `self.` paths), or the module's code. The
back-propagation evidence follows assignments, tuple unpacking, `append`, and the
return values of the file's own functions whose results are back-propagated.
"""

from __future__ import annotations

import ast
import builtins
import weakref

from . import torch_api as api
from .exprs import dotted_name, walk
from .name_fallback import OPTIMIZER_ROLE

MODULE_ROLE = "module"

# Methods only an nn.Module has (not a tensor, an optimizer or a scheduler).
MODULE_METHODS = frozenset(
    {"parameters", "named_parameters", "modules", "named_modules", "children",
     "named_children", "train", "eval", "buffers", "named_buffers", "register_buffer",
     "register_forward_hook", "register_forward_pre_hook", "register_module", "add_module"}
)  # fmt: skip
OPTIMIZER_ATTRIBUTES = frozenset({"param_groups", "add_param_group"})
ITERATING_BUILTINS = frozenset({"next", "iter"})
# The only nodes the evidence reads (what flows, and what is used how).
RELEVANT_NODES = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension,
    ast.NamedExpr, ast.withitem, ast.Call, ast.Attribute, ast.Return,
)  # fmt: skip
RELEVANT_KINDS = frozenset(RELEVANT_NODES)  # the parser makes no subclasses of them
# The methods whose receivers the evidence records (the rest say nothing of a role).
EVIDENCE_METHODS = MODULE_METHODS | OPTIMIZER_ATTRIBUTES | {"step", "zero_grad", "backward",
                                                            "manual_backward"}  # fmt: skip
BACKWARD_METHODS = frozenset({"backward", "manual_backward"})


def import_aliases(blocks) -> dict[str, str]:
    """Local name -> the dotted name it was imported as (`pl` -> `pytorch_lightning`), for
    every import of the file, also those inside functions (kept per block while it lives)."""
    aliases: dict[str, str] = {}
    for block in blocks:
        if block.error is not None:
            continue
        found = block.memo.get("import_aliases")
        if found is None:
            # No import without the keyword in the text: most blocks (a function, a class)
            # are not walked at all.
            statements = block.statements if "import" in block.text else ()
            found = block.memo["import_aliases"] = _block_aliases(statements)
        aliases.update(found)
    return aliases


def _block_aliases(statements) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for statement in statements:
        for node in _statements_under(statement):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.partition(".")[0]
                    aliases.setdefault(local, alias.name if alias.asname else local)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    aliases.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")
    return aliases


# What holds statements: an import is a statement, found only in the statement lists of
# these (never inside an expression).
STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements_under(statement: ast.stmt) -> list[ast.AST]:
    """`statement` and every statement (and except clause, and match case) inside it, in
    `walk`'s order less the expressions: walking those cost four times as much, for the
    imports of the file's classes and functions."""
    nodes = [statement]
    for node in nodes:  # a list's iterator sees what is appended behind it: breadth first
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list and value and isinstance(value[0], STATEMENT_HOLDERS):
                nodes.extend(value)
    return nodes


def qualify(dotted: str, aliases: dict[str, str]) -> str:
    head, dot, rest = dotted.partition(".")
    return aliases[head] + dot + rest if head in aliases else dotted


def _path(node: ast.AST) -> str | None:
    return dotted_name(node)


# What yields plain numbers (or flags, or shapes) whatever it is given: no history flows.
SCALAR_BUILTINS = frozenset(
    {"len", "range", "int", "float", "bool", "str", "round", "isinstance", "hasattr", "print",
     "math.ceil", "math.floor", "math.sqrt", "np.interp"}
)  # fmt: skip
SCALAR_METHODS = frozenset({"item", "size", "dim", "numel", "tolist", "nelement", "__len__"})
SCALAR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad"})
BUILTIN_NAMES = frozenset(dir(builtins))


def _sources(expr: ast.AST, tainted: dict[str, set], reads: list | None = None) -> set:
    """The callables whose results `expr` may hold: the calls in it, and what the names
    and paths it reads were assigned from. A call's result is a new value: what its
    callee was assigned from (`model = create_model()`) is not in it, but a method's
    receiver is (`out.view(-1)` holds what `out` holds). `reads`: gets the paths looked
    up in `tainted`."""
    found: set = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        kind = node.__class__  # the parser's own classes: compared by identity, not isinstance
        if kind is ast.Compare:
            continue  # a bool
        if kind is ast.Attribute and node.attr in SCALAR_ATTRIBUTES:
            continue  # `x.shape`, `x.device`: no history whatever `x` holds
        if kind is ast.Call:
            callee = _path(node.func)
            if callee in SCALAR_BUILTINS or (
                isinstance(node.func, ast.Attribute) and node.func.attr in SCALAR_METHODS
            ):
                continue  # `len(x)`, `range(n)`, `x.item()`: numbers
            if callee is not None:
                found.add(callee)
            if isinstance(node.func, ast.Attribute):
                todo.append(node.func.value)
            elif callee is None:
                todo.append(node.func)
            todo.extend(node.args)
            todo.extend(keyword.value for keyword in node.keywords)
            continue
        if kind is ast.Name or kind is ast.Attribute:
            path = _path(node)
            if path is not None:
                found |= tainted.get(path, set())
                if reads is not None:
                    reads.append(path)
                continue
        if kind in OPAQUE_KINDS:
            continue
        # ast.iter_child_nodes' order, without its two generators per node
        for field in node._fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                todo.extend([item for item in value if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                todo.append(value)
    return found


OPAQUE_KINDS = frozenset({ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def _targets(target: ast.AST) -> list[str]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [p for elt in target.elts for p in _targets(elt)]
    if isinstance(target, ast.Starred):
        return _targets(target.value)
    if isinstance(target, ast.Subscript):
        return _targets(target.value)
    path = _path(target)
    return [path] if path is not None else []


class ScopeEvidence:
    """Evidence for the paths of one scope (a function body, or module-level code)."""

    __slots__ = (
        "methods", "attributes", "backpropagated", "returned", "made", "called", "iterated",
        "params", "call_args", "loop_called", "has_loops",
    )  # fmt: skip

    def __init__(self, statements: list[ast.stmt], params: tuple[str, ...] = (), walked=None):
        self.methods: dict[str, set[str]] = {}  # path -> methods called on it
        self.attributes: dict[str, set[str]] = {}  # path -> attributes read on it
        self.backpropagated: set[str] = set()  # callables whose results reach a backward
        self.returned: set[str] = set()  # callables whose results this function returns
        self.made: dict[str, set[str]] = {}  # callable -> paths assigned its call's result
        self.called: set[str] = set()  # paths called as functions
        self.iterated: set[str] = set()  # paths (and callables) iterated over
        self.params = params
        if walked is None:  # each statement walked once, for every use
            walked = [walk(s) for s in statements]
        # Callables called inside a loop of this scope: a per-step forward, not a setting
        # computed once (`clip_range = schedule(progress)` before the epochs).
        self.loop_called, self.has_loops = _called_in_loops(walked)
        # Calls of the file's functions: (callee's last name, called as a method, the
        # sources of each positional argument, of each keyword argument).
        self.call_args: list[tuple[str, bool, ast.Call, dict]] = []
        nodes = [n for each in walked for n in each if n.__class__ in RELEVANT_KINDS]
        flows = [n for n in nodes if not isinstance(n, (ast.Attribute, ast.Return))]
        # A parameter's value stands for whatever the caller passes (see Roles).
        tainted: dict[str, set] = {name: {param_source(name)} for name in params}
        versions: dict[str, int] = {}  # path -> how many times its sources grew
        seen = [self._flow(node, tainted, versions) for node in flows]
        # A second round settles assignments out of order (loops). Only a flow that read
        # a path whose sources grew after it read them can find more: the others would
        # find what they found and add nothing, and are not worked out again.
        for node, read in zip(flows, seen):
            if read and any(versions.get(path, 0) != version for path, version in read):
                self._flow(node, tainted, versions)
        for node in nodes:
            self._use(node, tainted)

    def _flow(self, node: ast.AST, tainted: dict[str, set], versions: dict[str, int]):
        """Adds what `node` assigns to `tainted`; returns the paths its value read, each
        with its version then (None when it assigns nothing)."""
        value, targets = None, ()
        if isinstance(node, ast.Assign):
            value, targets = node.value, node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            value, targets = node.value, (node.target,)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            value, targets = node.iter, (node.target,)
        elif isinstance(node, ast.NamedExpr):
            value, targets = node.value, (node.target,)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            value, targets = node.context_expr, (node.optional_vars,)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in api.CONTAINER_ADDERS
        ):
            value, targets = node, (node.func.value,)
        if value is None:
            return None
        if isinstance(value, ast.Call) and not isinstance(node, ast.Call):
            maker = _path(value.func)
            if maker is not None:
                made = self.made.setdefault(maker, set())
                for target in targets:
                    made.update(_targets(target))
        reads: list[str] = []
        found = _sources(value, tainted, reads)
        read = [(path, versions.get(path, 0)) for path in reads]
        if found:
            for target in targets:
                for path in _targets(target):
                    kept = tainted.setdefault(path, set())
                    if not found <= kept:
                        kept |= found
                        versions[path] = versions.get(path, 0) + 1
        return read

    def _use(self, node: ast.AST, tainted: dict[str, set]) -> None:
        if isinstance(node, ast.Attribute) and node.attr in OPTIMIZER_ATTRIBUTES:
            owner = _path(node.value)
            if owner is not None:
                self.attributes.setdefault(owner, set()).add(node.attr)
        elif isinstance(node, ast.Return) and node.value is not None:
            self.returned |= _sources(node.value, tainted)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            # What is iterated is data (a dataset, a loader, `enumerate(loader)`): the
            # callables it comes from make data, whatever its items reach later.
            self.iterated |= _sources(node.iter, tainted)
            path = _path(node.iter)
            if path is not None:
                self.iterated.add(path)
        if not isinstance(node, ast.Call):
            return
        func = node.func
        if isinstance(func, ast.Name) and func.id in ITERATING_BUILTINS and node.args:
            # `next(loader)` takes the next batch as a `for` does: data, as above.
            self.iterated |= _sources(node.args[0], tainted)
        callee = _path(func)
        if callee is not None:
            self.called.add(callee)
            if node.args or node.keywords:
                # The arguments' sources are worked out only if the callee turns out to
                # be a function of the file that back-propagates a parameter (Roles).
                last = callee.rpartition(".")[2]
                self.call_args.append((last, isinstance(func, ast.Attribute), node, tainted))
        if isinstance(func, ast.Attribute) and func.attr in EVIDENCE_METHODS:
            receiver = _path(func.value)
            if receiver is not None:
                self.methods.setdefault(receiver, set()).add(func.attr)
                if func.attr == "step" and node.args:
                    self.methods[receiver].add("step(closure)")
            if func.attr in BACKWARD_METHODS:
                # `loss.backward()`, `y.backward(grad)`; `accelerator.backward(loss)`,
                # `self.manual_backward(loss)`: the root is the receiver or the argument.
                self.backpropagated |= _sources(func.value, tainted)
                if node.args:
                    self.backpropagated |= _sources(node.args[0], tainted)
        # `torch.autograd.backward(loss)` is an attribute call named `backward`: the branch
        # above has read its first argument. Only `autograd.grad(...)` is left.
        if callee is not None and callee.endswith("autograd.grad"):
            for arg in node.args[:1]:
                self.backpropagated |= _sources(arg, tainted)

    def role(
        self,
        path: str,
        backpropagated: set | None = None,
        looped: set | None = None,
        free: bool = False,
    ) -> str | None:
        """`looped`: callables this scope calls, when the scope itself runs in a loop;
        `free`: `path` is bound nowhere in the file, imports included (a snippet's global,
        where its use is all there is to know)."""
        methods = self.methods.get(path, ())
        attributes = self.attributes.get(path, ())
        if OPTIMIZER_ATTRIBUTES & set(attributes) or OPTIMIZER_ATTRIBUTES & set(methods):
            return OPTIMIZER_ROLE
        if "step(closure)" in methods or ("step" in methods and "zero_grad" in methods):
            return OPTIMIZER_ROLE
        if MODULE_METHODS & set(methods):
            return MODULE_ROLE
        if backpropagated is None:
            backpropagated = self.backpropagated
        if (
            path in backpropagated
            and path not in BUILTIN_NAMES
            and (free or path in self.loop_called or path in (looped or ()))
            and not self.makes_objects(path)
        ):
            return MODULE_ROLE
        return None

    def steps_an_optimizer(self) -> bool:
        """Whether the scope clears and steps an optimizer: a training step, which its
        caller (a trainer, a framework's loop) runs once per batch, never once per run."""
        return any({"step", "zero_grad"} <= methods for methods in self.methods.values())

    def makes_objects(self, path: str) -> bool:
        """`model = create_model(...)` then `model(x)`; `loader = get_loader()` then
        `for batch in loader`: what `path` returns is used as an object (called, iterated,
        a module or optimizer), so that back-propagating through its users' results says
        nothing about `path` itself."""
        if path in self.iterated:
            return True
        for target in self.made.get(path, ()):
            if target in self.called or target in self.iterated:
                return True
            methods = self.methods.get(target, ())
            if MODULE_METHODS & set(methods) or {"step", "zero_grad"} <= set(methods):
                return True
        return False


# Evidence of one definition's body, kept while its syntax tree lives (blocks an edit did
# not touch keep their trees, so a keystroke recomputes only the edited function's).
_EVIDENCE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MODULE_EVIDENCE: dict[tuple, ScopeEvidence] = {}  # by the module code's block contents


def _called_in_loops(walked: list[list[ast.AST]]) -> tuple[set[str], bool]:
    """Callables called inside a loop body, and whether there is a loop at all; `walked`:
    the nodes of each statement (walk). A loop's body is a run of statements, so its
    nodes are the ones whose start lies in the source range from the first to the end of
    the last: the calls are found from the positions in one pass over the nodes walked,
    where walking each loop's body again took a third of the evidence's time. (Each
    statement's tree is looked at alone: the module's blocks each number their lines
    from the line they were parsed at.)"""
    found: set[str] = set()
    loops = False
    for nodes in walked:
        bodies: list[tuple[tuple[int, int], tuple[int, int]]] = []
        calls: list[ast.Call] = []
        for node in nodes:
            kind = node.__class__
            if kind is ast.Call:
                calls.append(node)
            elif kind in LOOP_KINDS:
                first, last = node.body[0], node.body[-1]
                # A decorated definition starts at its first decorator, above its `def`.
                start = min((d.lineno, d.col_offset) for d in (first, *_decorators(first)))
                bodies.append((start, (last.end_lineno, last.end_col_offset)))
        if not bodies:
            continue
        loops = True
        for call in calls:
            where = (call.lineno, call.col_offset)
            if any(start <= where < end for start, end in bodies):
                path = _path(call.func)
                if path is not None:
                    found.add(path)
    return found, loops


LOOP_KINDS = frozenset({ast.For, ast.AsyncFor, ast.While})


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    return getattr(statement, "decorator_list", None) or []


def held_calls(definition, called: set[str]) -> set[str]:
    """The paths called on a method's first parameter (`self.net`, `self.actforward`)."""
    params = [*definition.args.posonlyargs, *definition.args.args]
    if not params:
        return set()
    prefix = params[0].arg + "."
    return {path for path in called if path.startswith(prefix)}


def param_source(name: str) -> str:
    return f"<parameter {name}>"  # no path can be spelled so


_LOCALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def local_names(definition) -> frozenset[str]:
    """The names Python makes local to `definition`: its parameters and what its body
    binds, less what it declares global or nonlocal."""
    found = _LOCALS.get(definition)
    if found is None:
        found = _LOCALS[definition] = _local_names(definition, [walk(s) for s in definition.body])
    return found


def _local_names(definition, walked: list[list[ast.AST]]) -> frozenset[str]:
    arguments = definition.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    declared: set[str] = set()
    for nodes in walked:
        for node in nodes:
            kind = node.__class__  # most nodes are none of these: one identity test each
            if kind is ast.Name:
                if node.ctx.__class__ is not ast.Load:  # Store or Del
                    names.add(node.id)
            elif kind in BINDING_KINDS:
                if kind is ast.alias:
                    names.add((node.asname or node.name).partition(".")[0])
                elif kind is ast.Global or kind is ast.Nonlocal:
                    declared.update(node.names)
                else:
                    names.add(node.name)
    return frozenset(names - declared)


BINDING_KINDS = frozenset(
    {ast.alias, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef}
)


def evidence_of(definition) -> ScopeEvidence:
    found = _EVIDENCE.get(definition)
    if found is None:
        arguments = definition.args
        params = tuple(
            a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
        )
        # The body is walked once for both: role_of asks for the local names of every
        # function whose evidence it read.
        walked = [walk(s) for s in definition.body]
        found = _EVIDENCE[definition] = ScopeEvidence(definition.body, params, walked)
        if definition not in _LOCALS:
            _LOCALS[definition] = _local_names(definition, walked)
    return found


class Roles:
    """Evidence for every scope of one program, computed lazily when the interpreter asks
    about a value nothing else tells it about. Back-propagation evidence crosses the
    file's own calls: a function whose result a caller back-propagates back-propagates
    what it returns, and a parameter a function back-propagates does so for what each
    caller passes."""

    def __init__(self, module_code: list[tuple], functions: list, aliases: dict[str, str]):
        self._module_code = module_code  # [(block, statements)] of module-level code
        self.aliases = aliases  # local name -> the dotted name it was imported as
        self._functions = functions  # the program's FunctionRefs (methods included)
        self._module: ScopeEvidence | None = None
        self._effective: dict[int, set] | None = None
        self._looped_names: set[str] | None = None
        # role_of's answers: the evidence is the program's syntax, fixed while it lives, and
        # the interpreter asks the same question at every pass over the same code.
        self._answers: dict[tuple, str | None] = {}

    def qualify(self, dotted: str) -> str:
        return qualify(dotted, self.aliases)

    def module(self) -> ScopeEvidence:
        if self._module is None:
            key = tuple(block.key for block, _ in self._module_code)
            found = _MODULE_EVIDENCE.get(key)
            if found is None:
                if len(_MODULE_EVIDENCE) > 64:
                    _MODULE_EVIDENCE.clear()
                statements = [s for _, part in self._module_code for s in part]
                found = _MODULE_EVIDENCE[key] = ScopeEvidence(statements)
            self._module = found
        return self._module

    def backpropagated(self, scope: ScopeEvidence) -> set:
        if self._effective is None:
            self._effective = self._propagate()
        return self._effective.get(id(scope), scope.backpropagated)

    def _propagate(self) -> dict[int, set]:
        definitions: dict[str, list] = {}
        for fn in self._functions:
            definitions.setdefault(fn.node.name, []).append(fn.node)
        scopes = [(None, self.module())]
        scopes.extend((fn.node, evidence_of(fn.node)) for fn in self._functions)
        effective = {id(scope): set(scope.backpropagated) for _, scope in scopes}
        results: set[str] = set()  # functions whose results a caller back-propagates
        params: dict[str, set[str]] = {}  # function -> its back-propagated parameters
        for _ in range(3):  # call chains this deep; each round only adds
            for definition, scope in scopes:
                found = effective[id(scope)]
                if definition is not None and definition.name in results:
                    found |= scope.returned
                for callee, as_method, call, tainted in scope.call_args:
                    wanted = params.get(callee)
                    if not wanted:
                        continue
                    positional = [_sources(arg, tainted) for arg in call.args]
                    keywords = {kw.arg: _sources(kw.value, tainted) for kw in call.keywords}
                    for target in definitions.get(callee, ()):
                        names = list(evidence_of(target).params)
                        if as_method and names[:1] in (["self"], ["cls"]):
                            names = names[1:]
                        for name, sources in zip(names, positional):
                            if name in wanted:
                                found |= sources
                        for name, sources in keywords.items():
                            if name in wanted:
                                found |= sources
                for callee in found:
                    last = callee.rpartition(".")[2]
                    if last in definitions:
                        results.add(last)
                if definition is not None:
                    # A parameter the function iterates is data: its items reaching a
                    # backward says nothing of what the caller passed (a loader).
                    mine = {
                        n
                        for n in scope.params
                        if param_source(n) in found and param_source(n) not in scope.iterated
                    }
                    if mine:
                        params.setdefault(definition.name, set()).update(mine)
        return effective

    def _role_in(self, definition, path: str, free: bool) -> str | None:
        scope = evidence_of(definition) if definition is not None else self.module()
        if path not in scope.called or path.partition(".")[0] in self.aliases:
            # An imported callable is a library's function or object: its result reaching
            # a backward (`net(preprocess(batch))`) is no evidence of parameters.
            # Only a callable can be a module by back-propagation: the file-wide
            # propagation is not needed for the rest.
            return scope.role(path, set())
        # A function without loops of its own that some loop calls (an agent's `act()`)
        # runs once per step: all its calls are per-step calls. So does a method that clears
        # and steps an optimizer (a framework's `learn()`, called by name nowhere in the
        # file), for the objects it holds (`self.critic(...)`): a function it imports
        # (`preprocess(batch)`) says nothing of parameters. One with its own training loop,
        # called per experiment, is judged by its loops.
        looped = None
        if definition is not None and not scope.has_loops:
            if self._runs_in_loop(definition):
                looped = scope.called
            elif scope.steps_an_optimizer():
                looped = held_calls(definition, scope.called)
        return scope.role(path, self.backpropagated(scope), looped, free)

    def _runs_in_loop(self, definition) -> bool:
        """Whether some scope of the file calls the function inside one of its loops."""
        if self._looped_names is None:
            scopes = [self.module(), *(evidence_of(fn.node) for fn in self._functions)]
            self._looped_names = {c.rpartition(".")[2] for sc in scopes for c in sc.loop_called}
        return definition.name in self._looped_names

    def role_of(self, path: str, function=None, owner=None, unbound=False) -> str | None:
        """The role evidence gives `path` read in `function` (a def node, or None for
        module code) of class `owner` (a ClassInfo, or None); `unbound`: the interpreter
        found no binding for its head."""
        key = (path, id(function), id(owner), unbound)  # both are the program's, kept by it
        try:
            return self._answers[key]
        except KeyError:
            found = self._answers[key] = self._role_of(path, function, owner, unbound)
            return found

    def _role_of(self, path: str, function, owner, unbound: bool) -> str | None:
        free = unbound and "." not in path and path not in self.aliases
        if function is not None:
            found = self._role_in(function, path, free)
            if found is not None:
                return found
        if owner is not None and path.startswith("self."):
            for method in owner.methods.values():
                found = self._role_in(method.node, path, False)
                if found is not None:
                    return found
        if function is not None and path.partition(".")[0] in local_names(function):
            return None  # a parameter or local: a module-level namesake says nothing of it
        return self._role_in(None, path, free)


def scope_roles(scope) -> ScopeEvidence:
    """Evidence over one checker scope (checks/scopes.Scope): a function's body, its
    class's methods for a method (`self.` paths), or module-level statements."""
    if scope.node is not None and scope.owner is None:
        return evidence_of(scope.node)
    kept = scope.__dict__.get("_roles")
    if kept is not None:
        return kept
    scope.__dict__["_roles"] = found = _scope_roles(scope)
    return found


def _scope_roles(scope) -> ScopeEvidence:
    if scope.owner is not None:
        statements = [s for s in scope.owner.body if isinstance(s, ast.FunctionDef)]
    else:
        statements = [statement for _, statement in scope.items]
    if not statements:
        return ScopeEvidence([])
    # Keyed by the first statement itself (a weak key): a replaced block's scopes go.
    found = _CHECKER_EVIDENCE.get(statements[0])
    if found is None or found[0] != len(statements):
        found = _CHECKER_EVIDENCE[statements[0]] = (len(statements), ScopeEvidence(statements))
    return found[1]


def is_module(evidence: ScopeEvidence, path: str | None) -> bool:
    """What the checkers ask (AG006, AG007): does the scope's use make `path` a module?"""
    return path is not None and evidence.role(path, free=True) == MODULE_ROLE


_CHECKER_EVIDENCE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def statement_aliases(statements) -> dict[str, str]:
    """Local name -> dotted name for every import among `statements`, at any depth: what
    `import_aliases` gives for blocks, for a tree the caller parsed itself (fixes/infer)."""
    return _block_aliases(statements)

"""The abstract interpreter: statements, loops unrolled twice, frames, backward.

One readable pass over each function body (and the module body), a handler per
statement type. Loops run two abstract passes: pass 2 starts from the join of the
state before the loop and the state at the end of pass 1, so a graph built in
iteration 1 and reached by a backward in iteration 2 is exactly what it looks like
(loops.py); `if` statements and the branches a stable flag takes are in branches.py,
expressions in exprs.py, calls in calls.py and library_calls.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from . import frameworks, stepped
from .added_modules import AddedModuleMixin
from .branches import BranchMixin
from .calls import CallMixin, literal_keyword
from .constructor_runs import ConstructorRuns
from .containers import aligned_origins
from .custom_functions import CustomFunctionMixin
from .definitions import ClassInfo, FunctionRef, api_kind_of, make_class_info
from .exprs import ExpressionMixin
from .guessed_parameters import Guess, GuessedParameters
from .library_calls import LayerStateMixin, LibraryMixin
from .library_submodules import LibrarySubmoduleMixin
from .lifetimes import LifetimeTracker
from .loops import LoopFrame, LoopMixin
from .module_globals import globals_for
from .parameter_classes import ClassTable, parameter_class
from .reparametrized import ReparametrizedMixin
from .saved_tensors import SavedTensorsMixin
from .setup_methods import setup_methods
from .storage_writes import StorageWriteMixin
from .syntax_facts import grad_mode_of, retains_graph
from .values import (
    CLASS,
    CONTAINER,
    EMPTY,
    FUNC,
    NOTHING,
    Binding,
    Freed,
    LoopPass,
    Origin,
    Site,
    State,
    Val,
    join_states,
    join_vals,
    next_creation,
)

MAX_CALL_DEPTH = 4  # local functions inlined this deep
INLINE_BUDGET = 300  # inlined calls per analysis root, to bound the work on odd code


@dataclass(eq=False)
class Frame:
    block: object
    function: FunctionRef | None
    grad_enabled: bool = True
    globals_env: dict | None = None  # None: this frame's env is the module's
    closure: dict | None = None  # a nested function's: the enclosing function's bindings
    returns: list = field(default_factory=list)
    return_states: list = field(default_factory=list)
    loops: list = field(default_factory=list)
    global_names: set = field(default_factory=set)
    # Stable `if` conditions -> what each branch bound (see `remember_branches`).
    branches: dict = field(default_factory=dict)
    # Parameters the call bound to a literal (literal_arguments.py): `if index == 0:`.
    literals: dict = field(default_factory=dict)


class Interpreter(
    SavedTensorsMixin,
    BranchMixin,
    LoopMixin,
    ExpressionMixin,
    CallMixin,
    LibraryMixin,
    LayerStateMixin,
    ReparametrizedMixin,
    CustomFunctionMixin,
    LibrarySubmoduleMixin,
    AddedModuleMixin,
    StorageWriteMixin,
):
    def __init__(
        self, classes: dict[str, ClassInfo], reporter, instances: dict | None = None, roles=None
    ):
        self.classes = classes
        self.roles = roles  # roles.Roles: evidence of what unknown values are
        self.reporter = reporter  # report.Reporter: turns conflicts into findings
        self.context: list[LoopPass] = []
        self.loop_frames: list[LoopFrame] = []
        self.call_chain: list[Site] = []
        self.active: list[FunctionRef] = []
        # Abstract objects (allocation site + loop context) -> their local class; shared by
        # the roots of one program, since the module's globals hold such objects.
        self.instances: dict[object, ClassInfo] = instances if instances is not None else {}
        self.seq = 0
        # Calls made up for a root's instances (a parameter of the file's class, a driven
        # class): objects are keyed by their node's id, so the nodes must outlive the run.
        self.made_up_calls: list[ast.Call] = []
        self.inlined = 0
        self.lifetimes = LifetimeTracker()
        # Whose parameters things stand for (see stepped.py): the leaf of `m.parameters()`
        # -> m's key; a module call's node -> the keys whose weights it saved; the objects
        # whose methods are being inlined, innermost last.
        self.param_owners: dict[Origin, object] = {}
        self.weight_saves: dict[Origin, frozenset] = {}
        self.receivers: list = []
        self.guessed = GuessedParameters()  # root parameters whose class is read from calls
        # What root parameters' classes are read from; the engine shares one per program.
        self.class_table = ClassTable(classes)
        self.call_site: ast.AST | None = None  # the module call being run (layer state)
        self.inlined_functions: set[int] = set()  # ids of the definitions run in context
        self.no_guesses = False  # True: unbound parameters are plain values, not name guesses
        # Objects a framework drives -> their attributes that the framework keeps as data.
        self.data_attributes: dict[object, frozenset] = {}
        self.frame: Frame = Frame(None, None)
        self.state: State | None = State({}, {}, {})
        # Nested functions' definitions -> (the enclosing def, its bindings there).
        self.closures: dict[int, tuple] = {}
        # Loops whose periodic backward branches pass 1 takes the other way (see run_loop).
        self.periodic_flipped: set[int] = set()

    # -- bookkeeping ----------------------------------------------------------------------
    def aligned_element(self, origins: frozenset, node: ast.Subscript) -> frozenset:
        """What `xs[i]` reads in this pass (see containers.py)."""
        if not origins or not self.context:
            return origins
        return aligned_origins(origins, node, self.context, self.loop_frames)

    def site(self, node: ast.AST) -> Site:
        return Site(self.frame.block, node)

    def new_origin(
        self, node: ast.AST, leaf: bool, label: str | None = None, assumed: bool = False
    ) -> Origin:
        self.seq = next_creation()
        # Most origins are made outside any inlined call: no generator for an empty chain.
        chain = self.call_chain
        calls = tuple([id(site.node) for site in chain]) if chain else ()
        context = tuple(self.context)
        return Origin(self.site(node), context, leaf, self.seq, label or "", calls, assumed)

    def role_of(self, path: str | None, binding: bool = False) -> str | None:
        """What the code's use says `path` is (roles.py), where nothing else is known;
        `binding`: asked where the code binds `path` (so it is no snippet's global)."""
        if path is None or self.roles is None:
            return None
        fn = self.frame.function
        unbound = not binding and self.lookup(path.partition(".")[0]) is None
        if fn is None:
            return self.roles.role_of(path, unbound=unbound)
        return self.roles.role_of(path, fn.node, fn.owner, unbound)

    def lookup(self, name: str) -> Binding | None:
        found = self.state.env.get(name) if self.state is not None else None
        if found is None and self.frame.closure is not None:
            found = self.frame.closure.get(name)
        if found is None and self.frame.globals_env is not None:
            found = self.frame.globals_env.get(name)
        return found

    def class_of_ref(self, ref) -> ClassInfo | None:
        return self.instances.get(ref)

    def can_inline(self, fn: FunctionRef) -> bool:
        return (
            len(self.call_chain) < MAX_CALL_DEPTH
            and fn not in self.active
            and self.inlined < INLINE_BUDGET
        )

    # -- roots ----------------------------------------------------------------------------
    def run_module(self, blocks_and_statements, definitions: dict) -> dict:
        """Run module-level code; returns its final bindings (the globals for functions)."""
        self.frame = Frame(None, None)
        self.state = State(dict(definitions), {}, {})
        for block, statements in blocks_and_statements:
            self.frame.block = block
            self.exec_block(statements)
            if self.state is None:
                break
        return self.state.env if self.state is not None else {}

    def run_root_function(
        self, fn: FunctionRef, globals_env: dict, constructors: ConstructorRuns
    ) -> None:
        """`constructors`: what `__init__` left for the program's earlier roots (kept by
        the caller, constructor_runs.py), to start from instead of running it again."""
        init = fn.owner.find_method("__init__") if fn.owner is not None else None
        heap = {}
        if init is not None and init.node is not fn.node:
            # A method runs on an object its class's `__init__` made: what that stored on
            # `self` (a target, a cached embedding) is there before the method's loops.
            heap = constructors.construct(self, init, globals_env, fn.owner)
        for setup in setup_methods(fn.owner, fn) if fn.owner is not None else ():
            # What a framework calls before the method: the sole writer of what it reads.
            self.enter_root(setup, globals_env, fn.owner, dict(heap))
            self.exec_block(setup.node.body)
            heap = self.state.heap if self.state is not None else heap
        self.enter_root(fn, globals_env, fn.owner, dict(heap))
        self.exec_block(fn.node.body)

    def enter_root(self, fn: FunctionRef, globals_env: dict, owner, heap: dict) -> None:
        """The frame of a function no caller we see runs: `self` of `owner`'s class, the
        other parameters what their uses in `fn` say they are."""
        # A copy: `global x = ...` in one root must not leak into the next root.
        self.frame = Frame(fn.block, fn, not fn.no_grad, dict(globals_env))
        env = {}
        self.state = State(env, heap, {})
        self.active = [fn]
        site = Site(fn.block, fn.node)
        positional = [*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs]
        for index, param in enumerate(positional):
            if index == 0 and owner is not None and param.arg in ("self", "cls"):
                ref = ("self", id(owner))
                self.instances[ref] = owner
                env[param.arg] = Binding(Val(frozenset(), api_kind_of(owner), ref), site)
            else:
                env[param.arg] = Binding(self.root_parameter(fn, param), site)

    def root_parameter(self, fn: FunctionRef, param: ast.arg) -> Val:
        """A root's parameter: an instance of the file's class its annotation or its calls
        show (parameter_classes.py), built as a caller would; else what its uses say."""
        info = parameter_class(fn.node, param, self.classes, self.class_table)
        if info is None:
            return self.parameter_default(param.arg)
        construct = ast.copy_location(ast.Call(ast.Name(info.name, ast.Load()), [], []), info.node)
        self.made_up_calls.append(construct)
        if param.annotation is None:  # read from its calls, not the user's word
            guess = Guess(self.site(param), param.arg, fn.node.name, info.name)
            self.guessed.record(self.instance_ref(construct), guess)
        block, guesses = self.frame.block, self.no_guesses
        # The constructor's arguments are not known here: plain values, not name guesses.
        self.frame.block, self.no_guesses = info.block, True
        try:
            return self.instantiate(construct, info, [])
        finally:
            self.frame.block, self.no_guesses = block, guesses

    def run_driver(self, info: ClassInfo, loop: ast.For, globals_env: dict) -> None:
        """A framework's loop over the user's class (frameworks.py): an instance built as
        the framework builds it, then the synthetic loop that calls its hooks."""
        self.frame = Frame(info.block, None, True, dict(globals_env))
        self.state = State({}, {}, {})
        construct = ast.copy_location(ast.Call(ast.Name(info.name, ast.Load()), [], []), info.node)
        self.made_up_calls.append(construct)
        # What the constructor is given is not known here: its parameters are plain values,
        # not guesses from their names (a `model_dim` is no model).
        # Known before the constructor runs: `__init__` reads `self.hparams` too.
        self.data_attributes[self.instance_ref(construct)] = frameworks.LIGHTNING_DATA_ATTRIBUTES
        self.no_guesses = True
        try:
            instance = self.instantiate(construct, info, [])
        finally:
            self.no_guesses = False
        self.state.env[frameworks.DRIVER_SELF] = Binding(instance, self.site(info.node))
        self.exec_block([loop])

    def run_function(
        self, fn: FunctionRef, params: dict, call_node: ast.AST, literals: dict | None = None
    ) -> Val:
        caller_frame, caller_state = self.frame, self.state
        globals_env = caller_frame.globals_env
        if globals_env is None:
            globals_env = caller_state.env
        globals_env = globals_for(fn, globals_env)  # another file's function: its module's names
        self.inlined += 1
        self.inlined_functions.add(id(fn.node))
        self.call_chain.append(self.site(call_node))
        self.active.append(fn)
        frame = Frame(fn.block, fn, caller_frame.grad_enabled and not fn.no_grad, globals_env)
        frame.closure = self.closure_of(fn, caller_frame, caller_state)
        frame.literals = literals or {}
        self.frame = frame
        self.state = State(params, caller_state.heap, caller_state.freed, caller_state.stepped)
        self.guessed.entered(self.receivers, fn.block, fn.node)
        try:
            self.exec_block(fn.node.body)
            ends = join_states([self.state, *frame.return_states])
        finally:
            self.frame, self.state = caller_frame, caller_state
            self.call_chain.pop()
            self.active.pop()
        if ends is not None:
            caller_state.heap = ends.heap
            caller_state.freed = ends.freed
            caller_state.stepped = ends.stepped
        result = NOTHING
        for val in frame.returns:
            result = join_vals(result, val) if result is not NOTHING else val
        return result

    # -- statements -----------------------------------------------------------------------
    def exec_block(self, statements) -> None:
        for statement in statements:
            if self.state is None:
                return
            handler = self._do_handlers[statement.__class__]
            if handler is not None:
                try:
                    handler(self, statement)
                except RecursionError:
                    # Valid but deep code (a 900-term sum, 200 nested calls): this statement
                    # goes unanalysed, and says so; the rest of the block is still checked.
                    self.reporter.not_analysed(self.site(statement))

    def do_Expr(self, node: ast.Expr) -> None:
        self.ev(node.value)

    def do_Assign(self, node: ast.Assign) -> None:
        value = node.value
        targets = node.targets
        if (
            len(targets) == 1
            and isinstance(value, ast.Tuple)
            and isinstance(targets[0], ast.Tuple)
            and len(value.elts) == len(targets[0].elts)
            and not any(isinstance(e, ast.Starred) for e in value.elts)
        ):
            vals = [self.ev(elt) for elt in value.elts]
            for target, val in zip(targets[0].elts, vals):
                self.bind(target, val, node)
            return
        val = self.ev(value)
        for target in targets:
            self.bind(target, val, node)

    def do_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind(node.target, self.ev(node.value), node)

    def do_AugAssign(self, node: ast.AugAssign) -> None:
        added = self.ev(node.value)
        if isinstance(node.target, ast.Subscript):
            self.ev(node.target.slice)
        self.modify_in_place(node.target, [added], node)

    def do_Return(self, node: ast.Return) -> None:
        val = self.ev(node.value) if node.value is not None else NOTHING
        self.frame.returns.append(val)
        self.frame.return_states.append(self.state)
        self.state = None

    def do_Raise(self, node: ast.Raise) -> None:
        if node.exc is not None:
            self.ev(node.exc)
        self.state = None

    def do_Assert(self, node: ast.Assert) -> None:
        self.ev(node.test)

    def do_Global(self, node: ast.Global) -> None:
        self.frame.global_names.update(node.names)

    def do_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.state.env.pop(target.id, None)
            elif self.is_whole_list(target):
                # `del losses[:]` empties the list, as `losses.clear()` does.
                self.assign_to(target.value, Val(EMPTY, CONTAINER), node)
            elif isinstance(target, ast.Subscript):
                # `del items[0]`: the rest move, so elements are no longer known by position.
                held = self.ev(target.value)
                if held.kind == CONTAINER and held.parts is not None:
                    self.assign_to(target.value, Val(held.origins, CONTAINER), node)

    def do_FunctionDef(self, node: ast.FunctionDef) -> None:
        fn = FunctionRef(node, self.frame.block)
        self.state.env[node.name] = Binding(Val(frozenset(), FUNC, fn), self.site(node))
        if self.frame.function is not None:  # a nested function: it reads the enclosing one's names
            self.closures[id(node)] = (self.frame.function.node, self.state.env)

    def closure_of(self, fn: FunctionRef, caller_frame: Frame, caller_state: State) -> dict | None:
        """The enclosing function's bindings a nested `fn` reads: as they are at the call
        when the enclosing function calls it (Python looks closure names up late), else as
        they were where `fn` was defined."""
        found = self.closures.get(id(fn.node))
        if found is None:
            return None
        definer, env = found
        if caller_frame.function is not None and caller_frame.function.node is definer:
            return caller_state.env
        return env

    do_AsyncFunctionDef = do_FunctionDef

    def do_ClassDef(self, node: ast.ClassDef) -> None:
        info = self.classes.get(node.name)
        if info is None or info.node is not node:
            aliases = self.roles.aliases if self.roles is not None else None
            info = make_class_info(node, self.frame.block, self.classes, aliases)
        self.state.env[node.name] = Binding(Val(frozenset(), CLASS, info), self.site(node))

    def do_With(self, node: ast.With) -> None:
        saved = self.frame.grad_enabled
        for item in node.items:
            mode = grad_mode_of(item.context_expr)
            if mode is not None:
                self.frame.grad_enabled = mode
            else:
                val = self.ev(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, val, node)
        try:
            self.exec_block(node.body)
        finally:
            self.frame.grad_enabled = saved

    do_AsyncWith = do_With

    def do_Try(self, node: ast.Try) -> None:
        before = self.state.copy()
        self.exec_block(node.body)
        self.exec_block(node.orelse)
        normal = self.state
        ends = [normal]
        for handler in node.handlers:
            # Handlers run as if the exception came late: the body's effects stand.
            self.state = (normal or before).copy()
            self.exec_block(handler.body)
            ends.append(self.state)
        self.state = join_states(ends)
        if node.finalbody:
            if self.state is None:
                self.state = before
            self.exec_block(node.finalbody)

    do_TryStar = do_Try

    def do_Match(self, node) -> None:
        self.ev(node.subject)
        before = self.state
        ends = [before]
        for case in node.cases:
            self.state = before.copy()
            self.exec_block(case.body)
            ends.append(self.state)
        self.state = join_states(ends)

    # -- backward -------------------------------------------------------------------------
    def backward(self, call: ast.Call, val: Val, node: ast.AST, behind=frozenset()) -> None:
        if self.state is None:
            return
        nodes = [o for o in val.origins if not o.leaf and o not in behind]
        if not nodes:
            return
        self.lifetimes.on_backward(self, call, nodes, literal_keyword(call, "retain_graph") is True)
        freed = self.state.freed
        # A graph only assumed to exist (an unknown call's result) is not enough for an error.
        # (Nor is a node that saved nothing: torch goes through it again.)
        saves_nothing = self.saves_nothing
        stale = [
            o
            for o in nodes
            if o in freed and not o.assumed and id(o.site.node) not in saves_nothing
        ]
        if stale:
            self.reporter.conflict(self, call, stale)
        else:  # the backward of each local autograd.Function it reaches (custom_functions.py)
            self.run_custom_backwards(call, nodes)
            freed = self.state.freed
        changed = stepped.changed_weights(self, nodes)
        if changed:
            stepped.report(self, call, changed)
        self.check_storage_writes(call, nodes)  # a kept tensor written after it was saved
        if not retains_graph(call):
            info = Freed(self.site(call), tuple(self.context), tuple(self.call_chain))
            for origin in nodes:
                if origin not in freed:
                    freed[origin] = info

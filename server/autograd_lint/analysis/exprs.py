"""Expression transfer rules: what graphs each expression's value may point into.

One handler per node type (`ev_<NodeName>`), in the manner of pyflakes' checker.
Calls are the interesting part and live in `calls.py`.
"""

from __future__ import annotations

import ast

from . import torch_api as api
from .bound_methods import bound_library_method
from .keyed_dicts import keyed_dict, keyed_entry
from .values import (
    CONTAINER,
    DIST,
    ELEMENT,
    EMPTY,
    MODULE,
    NAMESPACE,
    NOTHING,
    OBJECT,
    TENSOR,
    Binding,
    LoopPass,
    Val,
    join_vals,
)


def dotted_name(node: ast.AST) -> str | None:
    """`torch.nn.functional.relu` for an Attribute chain over a Name, else None."""
    if node.__class__ is ast.Name:
        return node.id  # most calls (the evidence asks of every name read): no list, no join
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class HandlerTable(dict):
    """Node class -> the `<prefix><NodeName>` function of `owner`, or None, looked up once:
    by a built name on every node, the lookup was a tenth of the interpreter's time."""

    def __init__(self, owner: type, prefix: str):
        super().__init__()
        self.owner = owner
        self.prefix = prefix

    def __missing__(self, kind: type):
        found = self[kind] = getattr(self.owner, self.prefix + kind.__name__, None)
        return found


def walk(root: ast.AST) -> list[ast.AST]:
    """Every node under `root` (itself first) in `ast.walk`'s order. A list built in one
    loop: `ast.walk` nests two generators per node, and the checkers walk every statement
    of a training file. (A list's iterator sees what is appended behind it, and the bound
    methods are looked up once: a third of the time of an indexed loop.)"""
    nodes = [root]
    append, extend, node_type = nodes.append, nodes.extend, ast.AST
    for node in nodes:
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                if value:
                    extend([item for item in value if isinstance(item, node_type)])
            elif value is not None and isinstance(value, node_type):
                append(value)
    return nodes


# `x @ w`, `x * w`, `x / w` keep `w` for the gradient of `x` (`+` and `-` keep nothing).
SAVING_OPERATORS = (ast.Mult, ast.MatMult, ast.Div)


def _rests_on_assumptions(origins) -> bool:
    """Whether the graph in `origins` is only assumed: it has nodes, and every node was
    built by a call we cannot see (leaves are real, but without those nodes they may not
    reach this value at all)."""
    nodes = [o for o in origins if not o.leaf]
    return bool(nodes) and all(o.assumed for o in nodes)


def literal_index(node: ast.AST) -> int | None:
    """`0`, `-1`: an index known from the text."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = literal_index(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def is_local_module(val: Val) -> bool:
    """An instance of one of the file's module classes (its object key is an instance's)."""
    return val.kind == MODULE and isinstance(val.ref, tuple) and val.ref[:1] == ("instance",)


def module_element(val: Val) -> Val | None:
    """What iterating over a list of the file's modules yields (`for layer in self.layers`,
    `for i, block in enumerate(self.blocks)`): their join, which keeps the class of the
    first; None for any other iterable."""
    if val.parts is None or not val.parts:
        return None
    joined = val.parts[0]
    for part in val.parts[1:]:
        joined = join_vals(joined, part)
    inner = joined.parts or ()
    if is_local_module(joined) or any(is_local_module(p) for p in inner):
        return joined
    return None


class ExpressionMixin:
    """Evaluates expressions against `self.state`; needs the interpreter's helpers."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._ev_handlers = HandlerTable(cls, "ev_")
        cls._do_handlers = HandlerTable(cls, "do_")  # statements: see Interpreter

    # -- entry ---------------------------------------------------------------------------
    def ev(self, node: ast.AST) -> Val:
        handler = self._ev_handlers[node.__class__]
        if handler is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)
            return NOTHING
        return handler(self, node)

    def union(
        self, vals, node: ast.AST | None = None, label: str | None = None, assumed: bool = False
    ) -> Val:
        """The result of a differentiable op over `vals`: their graphs plus a new node
        (`assumed`: an op we cannot see, taken to be one)."""
        origins = EMPTY
        for val in vals:
            if val.origins:
                origins = origins | val.origins
        if not origins or not self.frame.grad_enabled:
            return NOTHING
        if node is not None:
            # An op over history that is only assumed (an unknown call's result) is only
            # assumed to have history too: the chain rests on that call.
            assumed = assumed or _rests_on_assumptions(origins)
            origins = origins | {self.new_origin(node, leaf=False, label=label, assumed=assumed)}
        return Val(origins)

    # -- leaves of the syntax ------------------------------------------------------------
    def ev_Constant(self, node: ast.Constant) -> Val:
        return NOTHING

    def ev_Name(self, node: ast.Name) -> Val:
        binding = self.lookup(node.id)
        if binding is not None:
            return binding.val
        # A name bound nowhere we can see (a partial snippet's global): its uses may say.
        return self.refine(node.id, NOTHING)

    def ev_Attribute(self, node: ast.Attribute) -> Val:
        owner = self.ev(node.value)
        attr = node.attr
        if owner.kind == NAMESPACE:
            found = owner.ref.lookup(attr)
            return found.val if found is not None else NOTHING
        if attr in api.CUT_ATTRIBUTES:
            return NOTHING
        key = self.heap_key(node.value, owner)
        if key is not None:
            stored = self.state.heap.get((key, attr))
            if stored is not None:
                return stored.val
        if owner.kind == MODULE:
            if attr in self.data_attributes.get(owner.ref, ()):
                return NOTHING  # `self.hparams` of a LightningModule (frameworks.py)
            layer = self.library_submodule(node, owner)  # `bert.embeddings`: library_submodules
            if layer is not None:
                return layer
            # An unknown attribute of a module: a submodule or a parameter (a leaf).
            return Val(frozenset({self.new_origin(node, leaf=True)}), MODULE, None)
        if owner.kind == DIST:  # `d.probs`, `d.mean`: what a library row says it reads
            modelled = self.distribution_use(node, owner, attr, [])
            return modelled if modelled is not None else NOTHING
        if owner.kind in (CONTAINER, TENSOR, ELEMENT):
            # `out.logits`, `x.T`, `x.real`: still the same graph.
            return Val(owner.origins) if owner.origins else NOTHING
        bound = bound_library_method(owner, attr)  # `accelerator.backward`, called later
        return bound if bound is not None else NOTHING

    def ev_Subscript(self, node: ast.Subscript) -> Val:
        base = self.ev(node.value)
        self.ev(node.slice)
        if base.kind == CONTAINER:
            entry = keyed_entry(base, node.slice)
            if entry is not None:
                return entry
            index = literal_index(node.slice)
            if (
                base.parts is not None
                and index is not None
                and -len(base.parts) <= index < len(base.parts)
            ):
                return base.parts[index]
            origins = self.aligned_element(base.origins, node)
            return Val(origins, ELEMENT) if origins else NOTHING
        if base.kind in (MODULE, OBJECT):  # nn.ModuleList / ModuleDict entries are modules
            index = literal_index(node.slice)
            if (
                base.parts is not None
                and index is not None
                and -len(base.parts) <= index < len(base.parts)
            ):
                return base.parts[index]  # `self.layers[0]` of the file's modules
            return Val(base.origins, MODULE, None)
        return self.union([base], node)

    def ev_Slice(self, node: ast.Slice) -> Val:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.ev(part)
        return NOTHING

    # -- operators -----------------------------------------------------------------------
    def ev_BinOp(self, node: ast.BinOp) -> Val:
        # `a + b + c + ...` is a left-deep tree: its spine is walked in a loop, so a sum of
        # a thousand terms costs no recursion (evaluated left to right, as before).
        spine = []
        while isinstance(node, ast.BinOp):
            spine.append(node)
            node = node.left
        val = self.ev(node)
        for op in reversed(spine):
            operands = [val, self.ev(op.right)]
            val = self.union(operands, op)
            self.note_binary_node(op, val)  # `a + b` saves nothing: saved_tensors.py
            if isinstance(op.op, SAVING_OPERATORS):
                self.note_parameters_saved(op, operands, val)
                self.note_storages_saved(op, [op.left, op.right], operands, val)  # kept buffers
        return val

    def ev_UnaryOp(self, node: ast.UnaryOp) -> Val:
        operand = self.ev(node.operand)
        if isinstance(node.op, ast.Not):
            return NOTHING
        return self.union([operand], node)

    def ev_BoolOp(self, node: ast.BoolOp) -> Val:
        vals = [self.ev(v) for v in node.values]
        out = vals[0]
        for val in vals[1:]:
            out = join_vals(out, val)
        return out

    def ev_Compare(self, node: ast.Compare) -> Val:
        self.ev(node.left)
        for comparator in node.comparators:
            self.ev(comparator)
        return NOTHING

    def ev_IfExp(self, node: ast.IfExp) -> Val:
        self.ev(node.test)
        return join_vals(self.ev(node.body), self.ev(node.orelse))

    def ev_NamedExpr(self, node: ast.NamedExpr) -> Val:
        val = self.ev(node.value)
        self.bind(node.target, val, node)
        return val

    def ev_Await(self, node: ast.Await) -> Val:
        return self.ev(node.value)

    def ev_Starred(self, node: ast.Starred) -> Val:
        return self.ev(node.value)

    def ev_JoinedStr(self, node: ast.JoinedStr) -> Val:
        for value in node.values:
            self.ev(value)
        return NOTHING

    def ev_FormattedValue(self, node: ast.FormattedValue) -> Val:
        self.ev(node.value)
        return NOTHING

    def ev_Lambda(self, node: ast.Lambda) -> Val:
        return NOTHING

    def ev_Yield(self, node: ast.Yield) -> Val:
        if node.value is not None:
            self.frame.returns.append(self.ev(node.value))
        return NOTHING

    def ev_YieldFrom(self, node: ast.YieldFrom) -> Val:
        self.frame.returns.append(self.ev(node.value))
        return NOTHING

    # -- containers ----------------------------------------------------------------------
    def _container(self, parts) -> Val:
        origins = EMPTY
        for part in parts:
            if part is not None:
                val = self.ev(part)
                if val.origins:
                    origins = origins | val.origins
        return Val(origins, CONTAINER)

    def ev_Tuple(self, node: ast.Tuple) -> Val:
        if any(isinstance(elt, ast.Starred) for elt in node.elts):
            return self._container(node.elts)
        parts = tuple(self.ev(elt) for elt in node.elts)
        origins = EMPTY.union(*(p.origins for p in parts))
        return Val(origins, CONTAINER, None, parts)

    def ev_List(self, node: ast.List) -> Val:
        if any(isinstance(elt, ast.Starred) for elt in node.elts):
            return self._container(node.elts)
        # A list display knows its elements, as a tuple does: `state, log_prob = transition`
        # and `outputs[0]` read one element, not the union of all (see list_after).
        return self.ev_Tuple(node)

    def ev_Set(self, node: ast.Set) -> Val:
        return self._container(node.elts)

    def ev_Dict(self, node: ast.Dict) -> Val:
        keyed = keyed_dict(self, node)  # `{"loss": total, ...}`, read back as `out["loss"]`
        return keyed if keyed is not None else self._container([*node.keys, *node.values])

    def _comprehension(self, node, generators, elements) -> Val:
        """A comprehension is a loop: two passes, like `for` statements."""
        saved = {}
        for gen in generators:
            for name in self.target_names(gen.target):
                saved.setdefault(name, self.state.env.get(name))
        sources = []
        result = Val(EMPTY, CONTAINER)
        made = []  # each pass's element, when there is one element expression
        loop = self.enter_loop(node)
        # The loop's entry is the state before it: the passes run on a copy (as statement
        # loops do), or the names they bind would seem to be there before the loop.
        self.state = self.state.copy()
        try:
            for number in (1, 2):
                self.context.append(LoopPass(node, number))
                for index, gen in enumerate(generators):
                    if len(sources) <= index:
                        sources.append(self.element_of(self.ev(gen.iter)))
                    self.bind(gen.target, sources[index], gen.target)
                    for cond in gen.ifs:
                        self.ev(cond)
                if len(elements) == 1:
                    made.append(self.ev(elements[0]))
                    result = join_vals(result, Val(made[-1].origins, CONTAINER))
                else:
                    result = join_vals(result, self._container(elements))
                self.context.pop()
                if number == 1:
                    loop.pass1_end = self.state.copy()
        finally:
            self.leave_loop()
        # Comprehension variables do not leak into the enclosing scope.
        for name, old in saved.items():
            if old is None:
                self.state.env.pop(name, None)
            else:
                self.state.env[name] = old
        if made and all(is_local_module(v) for v in made):
            # `[Block(d) for _ in range(n)]`: the file's modules, one per pass, so that an
            # nn.ModuleList over them runs their own forward (and keeps their state).
            return Val(result.origins, CONTAINER, None, tuple(made))
        return Val(result.origins, CONTAINER)

    def ev_ListComp(self, node: ast.ListComp) -> Val:
        return self._comprehension(node, node.generators, [node.elt])

    ev_SetComp = ev_ListComp
    ev_GeneratorExp = ev_ListComp

    def ev_DictComp(self, node: ast.DictComp) -> Val:
        return self._comprehension(node, node.generators, [node.key, node.value])

    # -- helpers shared with statements --------------------------------------------------
    def element_of(self, val: Val) -> Val:
        """What iterating over `val` yields."""
        modules = module_element(val)
        if modules is not None:
            return modules
        if not val.origins:
            return NOTHING
        if val.kind in (CONTAINER, TENSOR, DIST):
            return Val(val.origins)
        return Val(val.origins, val.kind, None)

    def target_names(self, target: ast.AST) -> list[str]:
        if isinstance(target, ast.Name):
            return [target.id]
        if isinstance(target, (ast.Tuple, ast.List)):
            return [n for elt in target.elts for n in self.target_names(elt)]
        if isinstance(target, ast.Starred):
            return self.target_names(target.value)
        return []

    def heap_key(self, owner_node: ast.AST, owner: Val):
        if owner.kind in (MODULE, OBJECT) and owner.ref is not None:
            return owner.ref
        path = dotted_name(owner_node)
        if path is not None:
            return ("path", path)
        return None

    def store_attribute(self, target: ast.Attribute, val: Val, site_node: ast.AST) -> None:
        owner = self.ev(target.value)
        if target.attr == "requires_grad" and owner.kind in (TENSOR, ELEMENT):
            flag = getattr(site_node, "value", None)
            if isinstance(flag, ast.Constant) and flag.value is True and not owner.has_graph:
                # `real.requires_grad = True`, as `real.requires_grad_()`: a leaf from now on
                # (torch refuses it on a tensor with history, which keeps requiring grad).
                leaf = Val(frozenset({self.new_origin(site_node, leaf=True)}))
                self.assign_to(target.value, leaf, site_node)
            return
        key = self.heap_key(target.value, owner)
        if key is not None:
            self.state.heap[(key, target.attr)] = Binding(val, self.site(site_node))

    def modify_in_place(self, target: ast.AST, added: list[Val], node: ast.AST) -> None:
        """`x += y`, `x[i] = y`, `x.add_(y)`: the receiver's graph grows by `y` and a new node."""
        root = target
        while isinstance(root, ast.Subscript):
            root = root.value
        current = self.ev(root)
        if current.kind in (TENSOR, ELEMENT):
            self.note_storage_written(root, node)  # a kept tensor's new version (storage_writes)
        if current.kind == CONTAINER and isinstance(target, ast.Subscript):
            new = Val(current.origins.union(*(v.origins for v in added)), CONTAINER)
        else:
            new = self.union([current, *added], node)
            if not new.origins:
                new = current if current.kind != TENSOR else new
            elif current.kind != TENSOR:
                new = Val(new.origins, current.kind, current.ref)
        self.assign_to(root, new, node)

    def set_name(self, name: str, binding: Binding) -> None:
        if name in self.frame.global_names and self.frame.globals_env is not None:
            self.frame.globals_env[name] = binding  # `global hidden` in a function
        else:
            self.state.env[name] = binding

    def is_whole_list(self, target: ast.AST) -> bool:
        """`losses[:]` of a list that a name or attribute holds (evaluating one of those
        has no effects, so it may be evaluated again afterwards)."""
        if not isinstance(target, ast.Subscript) or not isinstance(target.slice, ast.Slice):
            return False
        part = target.slice
        return (
            part.lower is part.upper is part.step is None
            and isinstance(target.value, (ast.Name, ast.Attribute))
            and self.ev(target.value).kind == CONTAINER
        )

    def assign_to(self, target: ast.AST, val: Val, site_node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.set_name(target.id, Binding(val, self.site(site_node)))
        elif isinstance(target, ast.Attribute):
            self.store_attribute(target, val, site_node)

    def bind(self, target: ast.AST, val: Val, site_node: ast.AST) -> None:
        if isinstance(target, (ast.Name, ast.Attribute)) and not val.origins:
            # `model = create_model(...)`, `unet = accelerator.prepare(unet)`: an object
            # we cannot see, which the code's use of the name may show to be a module.
            val = self.refine(dotted_name(target), val, binding=True)
        if isinstance(target, ast.Name):
            self.set_name(target.id, Binding(val, self.site(site_node)))
        elif isinstance(target, (ast.Tuple, ast.List)):
            if val.parts is not None and len(val.parts) == len(target.elts):
                for elt, part in zip(target.elts, val.parts):
                    self.bind(elt, part, site_node)
                return
            part = val if val.kind != CONTAINER else Val(val.origins)
            for elt in target.elts:
                self.bind(elt, part, site_node)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, Val(val.origins, CONTAINER), site_node)
        elif isinstance(target, ast.Attribute):
            self.store_attribute(target, val, site_node)
        elif isinstance(target, ast.Subscript):
            self.ev(target.slice)
            if self.is_whole_list(target):
                # `losses[:] = []`: the list's old items are gone, the new ones are in.
                self.assign_to(target.value, Val(val.origins, CONTAINER), site_node)
                return
            self.modify_in_place(target, [val], site_node)

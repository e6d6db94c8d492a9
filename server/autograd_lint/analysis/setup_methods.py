"""The methods that set a class's object up before a training method runs, though no code
of the file calls them: `optim_initialize()` of an rlpyt algorithm, `setup()` of a
trainer. A framework calls them once, before the method it drives per batch.

The evidence is the class's own code, never a name: the method the analysis starts from
reads `self.x`, `__init__` does not assign `self.x`, and exactly one other method does.
That method is the one definition of `self.x` the class has, so the value the training
method reads is the one it stores (the optimizers it builds, and over whose
`.parameters()`: stepped.py needs them to tell what a step updates). A method that
back-propagates is a training step itself, and one the file calls is run where it is
called: neither is run ahead.
"""

from __future__ import annotations

import ast
import weakref
from typing import TYPE_CHECKING

from .exprs import dotted_name, walk
from .values import MODULE, OBJECT

if TYPE_CHECKING:  # definitions imports calls, which imports this module
    from .definitions import ClassInfo, FunctionRef


def _self_name(fn: FunctionRef) -> str | None:
    params = [*fn.node.args.posonlyargs, *fn.node.args.args]
    return params[0].arg if params else None


# A definition's `self.x` reads and writes, kept while its syntax tree lives: every root
# method of a class asks about all the others.
_ATTRIBUTES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _self_attributes(fn: FunctionRef, context: type) -> frozenset[str]:
    """The `self.x` that `fn` reads (`ast.Load`) or assigns (`ast.Store`)."""
    found = _ATTRIBUTES.get(fn.node)
    if found is None:
        me = _self_name(fn)
        loads, stores = set(), set()
        for node in walk(fn.node):
            owner = node.value if isinstance(node, ast.Attribute) else None
            if isinstance(owner, ast.Name) and owner.id == me:
                (stores if isinstance(node.ctx, ast.Store) else loads).add(node.attr)
        found = _ATTRIBUTES[fn.node] = (frozenset(loads), frozenset(stores))
    return found[1] if context is ast.Store else found[0]


def _calls_backward_or_is_called(fn: FunctionRef, owner: ClassInfo) -> bool:
    name = fn.node.name
    for node in walk(fn.node):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("backward", "manual_backward")
        ):
            return True
    # `self.setup()` somewhere: run where it is called (each method's reads are cached).
    return any(name in _self_attributes(other, ast.Load) for other in owner.methods.values())


def setup_methods(owner: ClassInfo, root: FunctionRef) -> list[FunctionRef]:
    """The methods of `owner` to run, in class order, after `__init__` and before `root`."""
    init = owner.methods.get("__init__")
    wanted = _self_attributes(root, ast.Load) - _self_attributes(root, ast.Store)
    if init is not None:
        wanted -= _self_attributes(init, ast.Store)
    if not wanted:
        return []
    writers: dict[str, list[FunctionRef]] = {}
    for fn in owner.methods.values():
        if fn is init or fn.node is root.node:
            continue
        for attr in _self_attributes(fn, ast.Store) & wanted:
            writers.setdefault(attr, []).append(fn)
    chosen = []
    for attr in sorted(wanted):
        sole = writers.get(attr, [])
        if len(sole) == 1 and sole[0] not in chosen:
            chosen.append(sole[0])
    chosen = [fn for fn in chosen if not _calls_backward_or_is_called(fn, owner)]
    order = list(owner.methods.values())
    return sorted(chosen, key=order.index)


def bound_access_path(interp, binding, rest: str):
    """The key of `m.<rest>` where `m = self.agent.model` was bound from an object's
    unknown attribute: the access path from that object (`self` and `agent.model.<rest>`),
    which every method of the class that binds `m` alike shares (the setup method's
    optimizer over `m.encoder.parameters()` and the step's call of `m.encoder(x)`)."""
    if binding is None or binding.site is None or binding.val.ref is not None:
        return None
    statement = binding.site.node
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    if not isinstance(statement.targets[0], ast.Name):
        return None
    source = dotted_name(statement.value)
    if source is None or "." not in source:
        return None
    head, _, inner = source.partition(".")
    root = interp.lookup(head)
    if root is None or root.val.kind not in (MODULE, OBJECT) or root.val.ref is None:
        return None
    return ("attr", root.val.ref, f"{inner}.{rest}")

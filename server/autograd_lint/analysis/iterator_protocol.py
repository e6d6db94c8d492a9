"""`for x, y in loader:` over an instance of a class the analysis reads.

Python iterates an object by calling its class's `__iter__` once and then the returned
iterator's `__next__` for each element. A hand-written data loader (`__iter__` resets a
cursor and returns `self`, `__next__` slices the tensors it was given) yields what its
`__next__` returns: when those tensors carry a graph built before the loop, each batch
carries it too, as `labels[i:j]` would in the loop's own body. Without this the element
of such a loop was nothing, and a backward through it went unseen.
"""

from __future__ import annotations

import ast
import weakref

from .values import MODULE, OBJECT, Val

# One synthetic `iterable.__iter__()` / `iterator.__next__()` call per loop, kept for the
# loop node's life: what the inlined method builds is keyed by its call node (instance_ref).
_CALLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _method_call(loop: ast.For, name: str) -> ast.Call:
    calls = _CALLS.setdefault(loop, {})
    if name not in calls:
        call = ast.Call(func=ast.Attribute(value=loop.iter, attr=name, ctx=ast.Load()), args=[],
                        keywords=[])  # fmt: skip
        calls[name] = ast.copy_location(call, loop.iter)
    return calls[name]


def _method(interp, val: Val, name: str):
    if val.kind not in (MODULE, OBJECT) or val.ref is None:
        return None
    return interp.local_method(val.ref, name)


def is_generator(fn) -> bool:
    """Whether the function's own body yields (a `yield` in a nested def is that def's);
    asked at every pass of every loop over such an object, answered once per definition."""
    found = _GENERATORS.get(fn.node)
    if found is None:
        found = _GENERATORS[fn.node] = _yields(fn.node)
    return found


_GENERATORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _yields(definition: ast.AST) -> bool:
    todo = list(definition.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def iterated_element(interp, loop: ast.For, iterable: Val) -> Val | None:
    """What one iteration of `loop` over `iterable` binds, when `iterable` is an instance
    of a class we read: what its generator `__iter__` yields, what the `__next__` of the
    object its `__iter__` returns gives, or the elements of what its `__iter__` returns
    (`iter(self.rows)`); None otherwise."""
    make_iterator = _method(interp, iterable, "__iter__")
    if make_iterator is None:
        return None
    call = _method_call(loop, "__iter__")
    iterator = interp.call_function(call, make_iterator, [], iterable)
    if interp.state is None:
        return None
    if is_generator(make_iterator):
        return iterator  # a generator function's call stands for the values it yields
    next_element = _method(interp, iterator, "__next__")
    if next_element is None:
        return interp.element_of(iterator) if iterator.origins else None
    return interp.call_function(_method_call(loop, "__next__"), next_element, [],
                                iterator)  # fmt: skip

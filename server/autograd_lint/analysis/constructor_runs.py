"""`__init__` run once per class for all of its method roots, where that is exact.

Every method root of a class starts on an object its `__init__` made (see
`Interpreter.run_root_function`): the same body, in the same globals, on a fresh
interpreter, so the same result every time. A class with many roots paid for it once per
root: accelerate's `Accelerator`, 36 roots over a 300-line `__init__` that calls across
the package, spent two thirds of the file's analysis (2.8 s of 4.3 s of CPU) there.

After the first root's `__init__`, what the interpreter holds is kept when it is plain
data (numbers; dicts, sets and lists of immutable values: AST nodes, origins, bindings,
tuples; objects whose attributes are such) and nothing the root would report or judge at its end was recorded
(no finding, no backward, no retained graph, no loop left open). A later root of the
class starts from a copy of it instead of running `__init__` again. Anything else is
not kept, and that root runs `__init__` itself, as before: the findings are the same
either way (tests/test_constructor_runs.py compares both over the corpora).
"""

from __future__ import annotations

import ast
import copy
import dataclasses

# The interpreter's own objects, not the constructor's result: the program's (shared by
# every root already), the root's own (replaced when the method's frame is entered), and
# the two checked to be empty, which a new interpreter starts empty.
NOT_COPIED = frozenset(
    {"classes", "instances", "roles", "class_table", "frame", "state", "active", "reporter"}
    | {"lifetimes"}
)
MUST_BE_EMPTY = ("context", "loop_frames", "call_chain", "receivers")
REPORTER_STATE = {"findings", "reported_roots"}  # a Reporter's; both empty to be kept
CONTAINERS = (dict, set, list)
# Values a copy may share: immutable ones, and the program's syntax (the last module call).
SHARED = (int, float, str, type(None), ast.AST)


class ConstructorRuns:
    """What each class's `__init__` left in the interpreter, for one program's roots."""

    def __init__(self):
        self._kept: dict[tuple, tuple[dict, dict] | None] = {}

    def construct(self, interp, init, globals_env: dict, owner) -> dict:
        """Runs `init` on a new object of `owner` in `interp` (or starts `interp` from what
        an earlier run left); returns the heap the method starts from."""
        key = (id(owner), id(init.node))
        kept = self._kept.get(key)
        if kept is not None:
            attributes, heap = kept
            for name, value in attributes.items():
                setattr(interp, name, _plain_copy(value))
            return dict(heap)
        interp.enter_root(init, globals_env, owner, {})
        interp.exec_block(init.node.body)
        heap = interp.state.heap if interp.state is not None else {}
        if key not in self._kept:
            self._kept[key] = _snapshot(interp, heap)
        return heap


def _snapshot(interp, heap: dict) -> tuple[dict, dict] | None:
    """(attributes, heap) to start another root from, or None when a copy might not be
    exact."""
    reporter = interp.reporter
    if set(vars(reporter)) != REPORTER_STATE or any(vars(reporter).values()):
        return None
    lifetimes = interp.lifetimes
    if not dataclasses.is_dataclass(lifetimes) or any(
        getattr(lifetimes, f.name) for f in dataclasses.fields(lifetimes)
    ):
        return None
    if any(getattr(interp, name, None) for name in MUST_BE_EMPTY):
        return None
    if not _plain_values(heap):
        return None
    attributes = {}
    for name, value in vars(interp).items():
        if name in NOT_COPIED:
            continue
        copied = _plain_copy(value)
        if copied is NOT_PLAIN:
            return None  # whether a copy is exact is not known here
        attributes[name] = copied
    return attributes, dict(heap)


NOT_PLAIN = object()


def _plain_copy(value, depth: int = 0):
    """A copy of `value` that shares nothing a root could change in place, or NOT_PLAIN:
    an immutable value itself; a container of immutable values, copied; an object of
    plain attributes (GuessedParameters' two dicts), copied with them."""
    if isinstance(value, SHARED):
        return value
    if isinstance(value, CONTAINERS):
        return value.copy() if _plain_values(value) else NOT_PLAIN
    if depth or not hasattr(value, "__dict__") or hasattr(type(value), "__slots__"):
        return NOT_PLAIN
    copied = copy.copy(value)
    for name, attribute in vars(value).items():
        inner = _plain_copy(attribute, depth + 1)
        if inner is NOT_PLAIN:
            return NOT_PLAIN
        setattr(copied, name, inner)
    return copied


def _plain_values(container) -> bool:
    """Whether a shallow copy of `container` is a full one: none of its values is itself
    a container something could change in place."""
    values = container.values() if isinstance(container, dict) else container
    return not any(isinstance(value, CONTAINERS) for value in values)

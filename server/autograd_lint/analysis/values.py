"""Abstract values: which autograd graphs a Python value may point into.

An `Origin` stands for the graph nodes created at one program site during one
abstract pass over the enclosing loops (see `graph-provenance.md`). A `Val` is a
set of origins plus what kind of object the value is (a tensor, a module, a
container...), which decides what calling it or reading its attributes does.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import NamedTuple

# Creation order across every interpreter of the process: the module's roots and each
# function's are separate interpreters whose origins meet (a global read in a function), and
# "the earliest of several" must not tie, or set order (a hash seed) would decide the story.
next_creation = itertools.count(1).__next__

# Value kinds. TENSOR also covers "unknown": anything not known to be something else.
TENSOR = 0
MODULE = 1  # an nn.Module instance (a local class, nn.*, or a name that looks like one)
OPTIMIZER = 2
FUNC = 3  # a function defined in the analysed file
CLASS = 4  # a class defined in the analysed file
OBJECT = 5  # an instance of a local class that is not a module
DIST = 6  # a torch.distributions object: it keeps the graph of its parameters
CONTAINER = 7  # list/dict/tuple/deque built here: reading from it yields its contents
ELEMENT = 8  # one element of a container: a tensor, but which of the contents is unknown
NAMESPACE = 9  # a module of the project imported with `import x`: ref is its ModuleSummary


class Site(NamedTuple):
    """A syntax node together with the block it was parsed in (blocks can move)."""

    block: object  # analysis.blocks.Block
    node: ast.AST


@dataclass(frozen=True, slots=True)
class LoopPass:
    """One abstract pass over one loop: part of every origin's context."""

    loop: ast.AST
    number: int  # 1 or 2 (a single pass past the unroll depth limit is 1)


class Origin:
    """Graph nodes created at `site` in the loop passes `context`."""

    __slots__ = ("site", "context", "calls", "leaf", "seq", "label", "assumed", "_hash")

    def __init__(
        self,
        site: Site,
        context: tuple[LoopPass, ...],
        leaf: bool,
        seq: int,
        label: str,
        calls: tuple[int, ...] = (),
        assumed: bool = False,
    ):
        self.site = site
        self.context = context
        # The call sites that led here: two calls of one helper build two graphs.
        self.calls = calls
        self.leaf = leaf
        self.seq = seq  # creation order, to pick the earliest of several
        self.label = label  # short source text of what built it, e.g. "rnn(x, hidden)"
        # Built by a call we cannot see (an unknown library function or object), on the
        # assumption that it passes its arguments' graphs on: never the sole ground of an
        # error (see roles.py and `Interpreter.backward`).
        self.assumed = assumed
        self._hash = hash((id(site.node), context, leaf, calls))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Origin)
            and self.site.node is other.site.node
            and self.context == other.context
            and self.leaf == other.leaf
            and self.calls == other.calls
        )

    def __repr__(self) -> str:
        passes = ",".join(str(p.number) for p in self.context)
        return f"Origin({self.label!r}@{getattr(self.site.node, 'lineno', '?')}[{passes}])"


EMPTY: frozenset[Origin] = frozenset()


class Val:
    """An abstract value: the graphs it may reach, and what kind of object it is."""

    __slots__ = ("origins", "kind", "ref", "parts")

    def __init__(
        self,
        origins: frozenset[Origin] = EMPTY,
        kind: int = TENSOR,
        ref: object = None,
        parts: tuple | None = None,
    ):
        self.origins = origins
        self.kind = kind
        # A tuple's elements, when known: `return logits, hidden` unpacks precisely.
        self.parts = parts
        # FUNC: (Site of the def); CLASS: ClassInfo; MODULE/OBJECT: a heap key (or None);
        # CONTAINER: None.
        self.ref = ref

    @property
    def has_graph(self) -> bool:
        return any(not o.leaf for o in self.origins)

    def with_origins(self, origins: frozenset[Origin]) -> Val:
        return Val(origins, self.kind, self.ref)

    def __repr__(self) -> str:
        return f"Val({sorted(map(repr, self.origins))}, kind={self.kind})"


NOTHING = Val()


def join_vals(a: Val, b: Val) -> Val:
    if a is b:
        return a
    kind = a.kind if a.kind == b.kind else (a.kind if a.kind != TENSOR else b.kind)
    ref = a.ref if a.ref is not None else b.ref
    if isinstance(ref, BoundMethod) and a.ref != b.ref:
        ref = ref._replace(maybe=True)  # a path where it is something else joins here
    elif kind == CONTAINER and a.ref != b.ref:
        ref = None  # two dicts' entries by key (keyed_dicts.py): which one is not known
    parts = None
    if a.parts is not None and b.parts is not None and len(a.parts) == len(b.parts):
        parts = tuple(join_vals(x, y) for x, y in zip(a.parts, b.parts))
    elif a.parts is not None and b.parts is not None:
        parts = objects_appended_on_one_path(a.parts, b.parts)
    if a.origins == b.origins and parts is None and a.parts is None:
        return a if (kind, ref) == (a.kind, a.ref) else Val(a.origins, kind, ref)
    return Val(a.origins | b.origins, kind, ref, parts)


def objects_appended_on_one_path(a: tuple, b: tuple) -> tuple | None:
    """A list of the file's objects that only one path appended to (`if c: xs.append(m)`):
    the longer list, whose extra elements may be there; None for anything else (tensors
    keep the rule that lists of different lengths lose their elements)."""
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if any(x is not y for x, y in zip(short, long)):
        return None
    if not all(v.kind in (MODULE, OBJECT) and v.ref is not None and not v.origins for v in long):
        return None
    return long


class BoundMethod(NamedTuple):
    """The ref of a library object's method read without a call (`accelerator.backward`,
    bound_methods.py); `maybe`: joined with another value, so not set on every path."""

    qualified: str
    maybe: bool = False


class OptimizerRef(NamedTuple):
    """What an OPTIMIZER value's `ref` holds: whose parameters it steps, and its class."""

    owners: frozenset | None  # the module keys whose `.parameters()` it was given
    qualified: str | None  # `torch.optim.LBFGS`, for the library rows of its methods


class Binding(NamedTuple):
    val: Val
    site: Site | None  # the statement that last assigned it


@dataclass(slots=True)
class Freed:
    """Where an origin's saved tensors were freed."""

    site: Site  # the backward call
    context: tuple[LoopPass, ...]
    call_chain: tuple[Site, ...]  # call sites leading into the function holding `site`


@dataclass(slots=True)
class Stepped:
    """The latest optimizer step that updated one module's parameters in place."""

    seq: int  # origins created before it (lower seq) saved the old parameter values
    site: Site  # the `step()` call
    context: tuple[LoopPass, ...]


class State:
    """What is known at one program point: local bindings, the object heap, freed graphs,
    and the optimizer steps that changed parameters (module key -> Stepped)."""

    __slots__ = ("env", "heap", "freed", "stepped")

    def __init__(self, env: dict, heap: dict, freed: dict, stepped: dict | None = None):
        self.env: dict[str, Binding] = env
        self.heap: dict[tuple, Binding] = heap
        self.freed: dict[Origin, Freed] = freed
        self.stepped: dict[object, Stepped] = stepped if stepped is not None else {}

    def copy(self) -> State:
        return State(dict(self.env), dict(self.heap), dict(self.freed), dict(self.stepped))


def _join_maps(a: dict, b: dict, join_entry) -> dict:
    if a is b:
        return a
    out = dict(a)
    for key, value in b.items():
        mine = out.get(key)
        if mine is None:
            out[key] = value
        elif mine is not value:
            out[key] = join_entry(mine, value)
    return out


def _join_bindings(a: Binding, b: Binding) -> Binding:
    if a.val is b.val:
        return a
    # Keep the assignment site that brings graph in: it is the one evidence should name.
    site = a.site if a.val.has_graph or not b.val.has_graph else b.site
    return Binding(join_vals(a.val, b.val), site)


def _intersect(a: dict, b: dict) -> dict:
    # A graph counts as freed only when every path freed it: a backward under an `if`
    # must not make the other path's later backward look like a second one.
    if a is b:
        return a
    return {key: value for key, value in a.items() if key in b}


def _earliest_steps(a: dict, b: dict) -> dict:
    # Like freed graphs, a step counts only when every path took it; of two, the earlier
    # one (fewer graphs were built before it) keeps the claim on the safe side.
    if a is b:
        return a
    return {key: min(a[key], b[key], key=lambda s: s.seq) for key in a.keys() & b.keys()}


def join_states(states: list[State | None]) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0]
    for other in live[1:]:
        out = State(
            _join_maps(out.env, other.env, _join_bindings),
            _join_maps(out.heap, other.heap, _join_bindings),
            _intersect(out.freed, other.freed),
            _earliest_steps(out.stepped, other.stepped),
        )
    return out

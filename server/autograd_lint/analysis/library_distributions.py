"""torch.distributions objects as their rows describe them (library_models/torch.toml).

A distribution keeps graphs its user never sees. `Categorical(logits=w)` normalises `w` in
`__init__`: a graph built once, shared by every later `log_prob`. `Bernoulli(probs=p)`
computes `logits` on the first `log_prob` and keeps it (a `lazy_property`): the second
`log_prob` reuses that graph, so a distribution built once and back-propagated twice
raises although `p` is a leaf. Which attribute is lazy depends on the parameter given
(`Bernoulli(logits=l)` computes `probs`, which `log_prob` never reads); the row says, per
family, which methods read which lazy attribute. An object of a family without such a row
(Normal) is what it was before: the graphs of its arguments.

The interpreter keeps a computed lazy attribute in the heap under the object's key, so
the evidence can say where it was computed, and each origin this module makes remembers
its row, for a step that points into the library's source (path and line).
"""

from __future__ import annotations

import ast
import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .blocks import Block
from .values import DIST, EMPTY, NOTHING, Binding, Site, Val

DISTRIBUTION = "distribution"  # the first element of a modelled distribution's key
LAZY = " (lazy_property of {})"  # ends the heap attribute of a computed lazy attribute


def lazy_model(qualified: str | None):
    """(row, its caches-lazily effect) for a family the interpreter can follow, or None."""
    from .library_calls import row_for  # library_calls' mixin is built on this module's

    row = row_for(qualified)
    effect = row.effect("caches-lazily") if row is not None else None
    if effect is None or effect.get("reads") is None or effect.get("parameters") is None:
        return None
    return row, effect


def given_parameter(node: ast.Call, effect) -> str | None:
    """Which of the alternatives (`probs`, `logits`) the constructor call passes."""
    alternatives = [name for name in effect["parameters"] if name in effect["attributes"]]
    for keyword in node.keywords:
        if keyword.arg is None:
            return None  # **options: which one is unknown
        if keyword.arg in alternatives:
            return keyword.arg
    positional = effect["parameters"]
    for index, argument in enumerate(node.args):
        if isinstance(argument, ast.Starred):
            return None
        if index < len(positional) and positional[index] in alternatives:
            return positional[index]
    return None


def is_distribution(ref) -> bool:
    return isinstance(ref, tuple) and ref[:1] == (DISTRIBUTION,)


class DistributionMixin:
    def new_distribution(self, node: ast.Call, qualified: str | None, args: list[Val]) -> Val:
        """`Bernoulli(probs=p)`: the object, keyed by where and in which pass it is made."""
        origins = EMPTY.union(*(a.origins for a in args))
        model = lazy_model(qualified)
        given = given_parameter(node, model[1]) if model is not None else None
        if given is None:
            return Val(origins, DIST)
        row, effect = model
        if given in effect.get("builds", ()):
            # __init__ computes from the argument (Categorical normalises it): one graph
            # that saves tensors, shared by every use of the object.
            built = self.union(args, node)
            note = distribution_note(row, "builds", given, tuple(self.context))
            for origin in built.origins - origins:
                self.library_notes[origin] = note
            origins = built.origins
        ref = (DISTRIBUTION, row.target, given, id(node), tuple(self.context))
        return Val(origins, DIST, ref)

    def distribution_use(self, node, receiver: Val, name: str, args: list[Val]) -> Val | None:
        """`d.log_prob(x)`, `d.entropy()`, `d.mean`, `d.logits` of a modelled object; None
        where the row says nothing of `name` (the caller does what it did before)."""
        if not is_distribution(receiver.ref):
            return None
        model = lazy_model(receiver.ref[1])
        if model is None:
            return None
        row, effect = model
        given = receiver.ref[2]
        reads = effect["reads"].get(name)
        if reads is None and name in effect["attributes"]:
            reads = (name,)  # the attribute itself
        no_history = name in effect.get("no-history", ())
        if reads is None and not no_history:
            return None
        cached = [
            self.lazy_attribute(node, receiver, row, attribute)
            for attribute in reads or ()
            if attribute != given
        ]
        if no_history:
            return NOTHING  # a sample, a mode: data, though the cache is filled
        if name == given:
            return Val(receiver.origins) if receiver.origins else NOTHING
        if name in effect["attributes"]:
            return cached[0] if cached else NOTHING
        return self.union([receiver, *cached, *args], node)

    def lazy_attribute(self, node, receiver: Val, row, attribute: str) -> Val:
        """The object's `attribute`, computed here on first use and kept: torch computes a
        lazy_property under enable_grad, so even under no_grad it carries a graph."""
        if self.state is None:
            return NOTHING
        key = (receiver.ref, attribute + LAZY.format(row.target.rpartition(".")[2]))
        made = receiver.ref[4]  # the loop passes the object was made in
        stored = self.state.heap.get(key)
        if stored is not None:
            return stored.val
        if not receiver.origins:
            value = NOTHING  # parameters without history: nothing to keep
        else:
            assumed = all(o.assumed for o in receiver.origins if not o.leaf) and any(
                not o.leaf for o in receiver.origins
            )
            origin = self.new_origin(node, leaf=False, label=attribute, assumed=assumed)
            self.library_notes[origin] = distribution_note(row, "lazy", attribute, made)
            value = Val(receiver.origins | {origin})
        # The cache is named as what carries a graph into the next iteration only when the
        # object is older than this iteration; one made in it is carried, if at all, by
        # whatever holds the object (a name, a list), and evidence names that.
        older = len(made) < len(self.context)
        self.state.heap[key] = Binding(value, self.site(node) if older else None)
        return value

    @functools.cached_property
    def library_notes(self) -> dict:
        """Origins a library made -> the Note its evidence step is made of."""
        return {}


@dataclass(frozen=True)
class Note:
    """What a library does with a graph, for a step pointing into its source."""

    key: tuple  # one step per key and finding
    message: str
    made: tuple  # the loop passes the library's object was made in
    locate: Callable[[], Site | None] = field(compare=False)


def distribution_note(row, what: str, name: str, made: tuple) -> Note:
    family = row.target.rpartition(".")[2]
    if what == "lazy":
        message = (
            f"`{family}.{name}` is a lazy_property: computed from the distribution's "
            f"parameters on first use and kept on the object, so later uses reuse its graph"
        )
    else:
        message = (
            f"`{family}.__init__` computes `self.{name}` from the argument once: "
            f"every use of the object reuses that graph"
        )
    return Note((row.target, what, name), message, made, lambda: library_site(row, what, name))


def library_steps(interp, stale) -> list:
    """Evidence steps inside the library for the stale origins a library explains: the
    lazy_property that computed and kept them, the constructor line that built them, the
    line of a layer's forward that keeps them on self."""
    from .model import Role
    from .report import RawStep

    notes = interp.library_notes
    if not notes:
        return []
    # Across iterations, the library explains the crash only if its object is older than
    # the iteration (a Categorical built per step is carried by what holds it, if at all).
    context = tuple(interp.context)
    carried = any(interp.state.freed[o].context != context for o in stale)
    steps, seen = [], set()
    for origin in sorted(stale, key=lambda o: o.seq):
        note = notes.get(origin)
        if note is None or note.key in seen or (carried and len(note.made) >= len(context)):
            continue
        seen.add(note.key)
        site = note.locate()
        if site is not None:
            steps.append(RawStep(site, note.message, Role.NOTE))
    return steps


def source_site(path: str, line: int) -> Site | None:
    """The statement at `line` of a library file, as a site evidence can point at."""
    parsed = _parse(Path(path))
    if parsed is None:
        return None
    block, tree = parsed
    found = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line), None)
    return Site(block, found) if found is not None else None


_SOURCES: dict[str, tuple[float, Block, ast.Module] | None] = {}


def library_site(row, what: str, name: str) -> Site | None:
    """The line of the library's source a note points at: `def logits` under
    `@lazy_property`, or the last `self.probs = ...` of `__init__`. The file is the row's
    `source` path found on this interpreter's sys.path (the analysis imports nothing)."""
    relative = row.source.partition(":")[0].strip()
    found = (Path(entry, relative) for entry in sys.path if entry)
    file = next((path for path in found if os.path.isfile(path)), None)
    parsed = _parse(file) if file is not None else None
    if parsed is None:
        return None
    block, tree = parsed
    family = row.target.rpartition(".")[2]
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == family), None)
    if cls is None:
        return None
    functions = [n for n in cls.body if isinstance(n, ast.FunctionDef)]
    if what == "lazy":
        found = next((f for f in functions if f.name == name), None)
        return Site(block, found) if found is not None else None
    init = next((f for f in functions if f.name == "__init__"), None)
    if init is None:
        return None
    assigned = [
        statement
        for statement in ast.walk(init)
        if isinstance(statement, ast.Assign)
        and any(
            isinstance(node, ast.Attribute) and node.attr == name
            for target in statement.targets
            for node in ast.walk(target)
        )
    ]
    return Site(block, assigned[-1]) if assigned else None


def _parse(file: Path):
    key = str(file)
    try:
        stamp = file.stat().st_mtime
    except OSError:
        return None
    cached = _SOURCES.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    try:
        text = file.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None
    block = Block(text.splitlines(), 1, [], 1, None)
    block.path = key
    _SOURCES[key] = (stamp, block, tree)
    return block, tree

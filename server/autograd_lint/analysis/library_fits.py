"""Library fit loops over what an object holds (`backpropagates-held` rows).

A library's training routine often back-propagates, at every iteration of a loop of its
own, a loss computed from data the user handed to an object long before: botorch's
`fit_gpytorch_mll(mll)` optimises the marginal likelihood of `mll.model` over the
training targets that `SingleTaskGP(train_X, train_Y)` keeps; denoising_diffusion_pytorch's
`Trainer1D.train()` draws its batches from the dataset it was built with. A target or a
dataset tensor built with autograd history before the fit is then back-propagated once
per iteration, and the second iteration raises.

What an object of a library class holds is what its constructor stores: read from the
class's source (`LibrarySummaries.method_stores(cls, "__init__")`, which follows
`super().__init__` and `Base.__init__(self, ...)` along the chain), or from a
`stores-argument` row of the class, and, through objects it stores, what they hold
(`SumMarginalLogLikelihood(likelihood, model)` holds the model, which holds its
targets). The fit itself is a row (`backpropagates-held`), run as a loop of two passes
whose backward reaches everything held, so a graph built before it is freed by the first
pass and reached again by the second, as torch does.
"""

from __future__ import annotations

import ast
import functools
import logging
import os
import sys
from pathlib import Path

from .library_distributions import Note, _parse
from .values import CONTAINER, EMPTY, FUNC, NOTHING, Binding, Site, Val

log = logging.getLogger(__name__)

HOLDS = "<holds>"  # heap attribute: the objects a library object stores (unnamed in evidence)
MAX_HOLDING_DEPTH = 8  # objects stored in objects stored in ...
HOLDING_EFFECTS = ("stores-argument", "caches-call-of-argument")


@functools.cache
def _fit_rows() -> tuple[frozenset[str], frozenset[str]]:
    """(the names whose mention marks a file, the top-level packages) of the rows with a
    fit loop, from one walk over the model rows."""
    from . import library_models

    markers, libraries = set(), set()
    try:
        for row in library_models.rows():
            if row.effect("backpropagates-held") is None:
                continue
            libraries.add(row.target.partition(".")[0])
            for name in row.names:
                parts = name.split(".")
                # A method (`Model.train`): the library's name, in its import.
                method = len(parts) > 2 and parts[-2][:1].isupper()
                markers.add(parts[0] if method else parts[-1])
    except Exception:  # noqa: BLE001 - a broken data file costs its rows, nothing more
        log.exception("autograd-lint: library models could not be read")
    return frozenset(markers), frozenset(libraries)


def fit_markers() -> frozenset[str]:
    """Names whose mention makes a file worth interpreting though it never spells
    `backward`: a fit loop's function (`fit_gpytorch_mll`) or class (`Trainer1D`)."""
    return _fit_rows()[0]


def fit_libraries() -> frozenset[str]:
    """Top-level packages with a fit loop row: their objects are followed for what they
    hold (`deepxde`: its Model's train reaches the data, the data its conditions)."""
    return _fit_rows()[1]


def holds_what_it_is_given(qualified: str) -> bool:
    """A library class whose objects a fit loop may reach through what they hold: a row
    says what it keeps, or its library has a fit loop and its source stores arguments."""
    from .library_calls import row_for

    if qualified.partition(".")[0] not in fit_libraries():
        row = row_for(qualified)
        return row is not None and any(row.effect(kind) for kind in HOLDING_EFFECTS)
    return bool(stored_parameters(qualified)[0])


def stored_parameters(qualified: str) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """(constructor parameter -> the attributes the class stores it in, how its call
    binds arguments): from `stores-argument` rows of the class, else from its source;
    empty when unknown."""
    from .library_calls import row_for
    from .library_layers import current_summaries, is_installed_class

    row = row_for(qualified)
    effects = [e for e in row.effects if e.kind in HOLDING_EFFECTS] if row is not None else []
    if effects:
        stored: dict[str, tuple[str, ...]] = {}
        for effect in effects:
            attribute = effect.get("attribute") or f"{effect['argument']}(...)"
            stored[effect["argument"]] = (*stored.get(effect["argument"], ()), attribute)
        positional = {e["position"]: e["argument"] for e in effects if "position" in e.parameters}
        order = tuple(positional.get(i, f"#{i}") for i in range(max(positional, default=-1) + 1))
        return stored, order
    try:
        if not is_installed_class(qualified):
            return {}, ()  # only installed libraries' classes are read
        summaries = current_summaries()
        stores = summaries.method_stores(qualified, "__init__")
        parameters = summaries.method_parameters(qualified, "__init__")
    except Exception:  # noqa: BLE001 - a library we cannot read costs its findings only
        log.exception("autograd-lint: could not summarise %s", qualified)
        return {}, ()
    by_parameter: dict[str, tuple[str, ...]] = {}
    for attribute, found in stores.items():
        for parameter in found:
            by_parameter[parameter] = (*by_parameter.get(parameter, ()), attribute)
    return by_parameter, parameters


def held_phrase(cls: str, attributes: list[str]) -> str:
    """What evidence calls the graphs an object holds: "what the `SingleTaskGP` holds in
    `train_inputs` and `train_targets`"."""
    quoted = [f"`{a}`" for a in attributes]
    listed = ", ".join(quoted[:-1]) + " and " + quoted[-1] if len(quoted) > 1 else quoted[0]
    return f"what the `{cls}` holds in {listed}"


def called_arguments(qualified: str) -> frozenset[str]:
    """The constructor parameters a row says the library calls and keeps the value of."""
    from .library_calls import row_for

    row = row_for(qualified)
    if row is None:
        return frozenset()
    return frozenset(e["argument"] for e in row.effects if e.kind == "caches-call-of-argument")


def bind(node: ast.Call, args: list[Val], parameters: tuple[str, ...]) -> dict | None:
    """Constructor parameter name -> the values passed for it ("*": `*args`), or None
    when the values do not line up with the call's text."""
    if len(args) != len(node.args) + len(node.keywords):
        return None
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    positional = parameters[: parameters.index("*")] if "*" in parameters else parameters
    bound: dict[str, list[Val]] = {}
    for index, value in enumerate(args[: len(node.args)]):
        name = positional[index] if index < len(positional) else "*"
        bound.setdefault(name, []).append(value)
    for keyword, value in zip(node.keywords, args[len(node.args) :]):
        bound.setdefault(keyword.arg or "**", []).append(value)
    return bound


def cited_site(row) -> Site | None:
    """The line of the library a row's `source` cites (`path: Class.method (`code`)`):
    the statement of that function whose text holds the quoted code, in the file found on
    this interpreter's sys.path; None when the library is not installed here."""
    relative, _, rest = row.source.partition(":")
    found = (Path(entry, relative.strip()) for entry in sys.path if entry)
    file = next((path for path in found if os.path.isfile(path)), None)
    parsed = _parse(file) if file is not None else None
    if parsed is None:
        return None
    block, tree = parsed
    where = rest.strip().split(" ")[0]
    quoted = rest.partition("`")[2].partition("`")[0]
    function = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == where.split(".")[0]:
            function = node
            for part in where.split(".")[1:]:
                function = next(
                    (n for n in function.body if getattr(n, "name", None) == part), None
                )
                if function is None:
                    break
            if function is not None:
                break
    if function is None:
        return None
    holding = [
        statement
        for statement in ast.walk(function)
        if isinstance(statement, ast.stmt)
        and statement is not function
        and quoted
        and quoted in "\n".join(block.lines[statement.lineno - 1 : statement.end_lineno])
    ]
    # The innermost statement that holds it (`value.backward()`, not the `with` around it).
    best = min(holding, key=lambda s: (s.end_lineno - s.lineno, -s.col_offset), default=None)
    return Site(block, best if best is not None else function)


class HeldMixin:
    def hold_arguments(self, node: ast.Call, made: Val, qualified: str, args: list[Val]) -> Val:
        """A library object keeps what its constructor stores: remember the graphs it
        holds, and the objects it stores (which hold their own), for a fit loop."""
        if self.state is None or made.ref is None:
            return made
        called = called_arguments(qualified)
        if not any(self.worth_holding(a) for a in args) and not called:
            return made  # nothing a fit loop could reach: the class is not even read
        stored, parameters = stored_parameters(qualified)
        if not stored:
            return made
        bound = bind(node, args, parameters)
        if bound is None:
            return made
        graphs, objects, attributes = EMPTY, [], set()
        for name, values in bound.items():
            if name in called:
                # The library calls it on data of its own and keeps the value (DeepXDE's
                # IC caches its function's values on the training points).
                values = [self.call_kept_function(node, v) for v in values]
                self.note_kept_values(qualified, values)
            for value in values if name in stored else ():
                if any(not o.leaf for o in value.origins):
                    graphs = graphs | value.origins
                    attributes.update(stored[name])
                if value.ref is not None or value.parts:
                    objects.append(value)
        heap = self.state.heap
        if graphs:
            # Named for the evidence, in words (no attribute of the object is spelled so).
            attribute = held_phrase(qualified.rpartition(".")[2], sorted(attributes))
            self.held_attributes[made.ref] = attribute
            heap[(made.ref, attribute)] = Binding(Val(graphs), self.site(node))
        if objects:
            heap[(made.ref, HOLDS)] = Binding(Val(EMPTY, CONTAINER, None, tuple(objects)), None)
        return made

    def call_kept_function(self, node: ast.Call, value: Val) -> Val:
        """The value of a function of the file called with plain data, as a library that
        keeps it calls it; anything else passed is kept as it is."""
        if value.kind != FUNC or value.ref is None:
            return value
        arguments = value.ref.node.args
        count = len(arguments.posonlyargs) + len(arguments.args) - len(arguments.defaults)
        return self.call_function(node, value.ref, [NOTHING] * max(count, 0), None)

    def note_kept_values(self, qualified: str, values: list[Val]) -> None:
        """Evidence for what a row's object keeps: a step at the library's cache."""
        from .library_calls import row_for

        row = row_for(qualified)
        note = Note((row.target, "kept"), row.says, tuple(self.context), lambda: cited_site(row))
        notes = self.library_notes
        for value in values:
            for origin in value.origins:
                if not origin.leaf:
                    notes.setdefault(origin, note)

    def worth_holding(self, value: Val, depth: int = 0) -> bool:
        """A graph, or an object or container that may lead to one."""
        if value.has_graph or self.holds_graphs(value):
            return True
        return depth < MAX_HOLDING_DEPTH and any(
            isinstance(part, Val) and self.worth_holding(part, depth + 1)
            for part in value.parts or ()
        )

    def holds_graphs(self, value: Val) -> bool:
        """Whether a library object holds graphs (or objects that may): kept by name."""
        if self.state is None or value.ref is None:
            return False
        heap = self.state.heap
        return value.ref in self.held_attributes or (value.ref, HOLDS) in heap

    @functools.cached_property
    def held_attributes(self) -> dict:
        """An object's key -> the heap attribute naming the graphs it holds."""
        return {}

    def held_by(self, value: Val, depth: int = 0) -> frozenset:
        """The graphs a library object holds, its stored objects' too (a list of models)."""
        if self.state is None or depth > MAX_HOLDING_DEPTH:
            return EMPTY
        found = EMPTY
        heap = self.state.heap
        if value.ref is not None:
            attribute = self.held_attributes.get(value.ref)
            binding = heap.get((value.ref, attribute)) if attribute is not None else None
            if binding is not None:
                found = binding.val.origins
            holds = heap.get((value.ref, HOLDS))
            if holds is not None:
                found = found | self.held_by(holds.val, depth + 1)
        for part in value.parts or ():
            if isinstance(part, Val):
                found = found | self.held_by(part, depth + 1)
        return found

    def library_fit(self, node: ast.Call, receiver: Val, method: str) -> Val | None:
        """`model.train()` of a library object whose row is a fit loop (deepxde's Model),
        before `train` is taken for nn.Module's mode switch; None: no such row."""
        from .library_calls import is_extern, row_for

        if not is_extern(receiver.ref):
            return None
        return self.fit_held(node, row_for(f"{receiver.ref[1]}.{method}"), receiver)

    def fit_held(self, node: ast.Call, row, target: Val | None) -> Val | None:
        """A row's fit loop (`fit_gpytorch_mll(mll)`, `trainer.train()`): each of its
        iterations back-propagates through what `target` holds. None: no such row."""
        effect = row.effect("backpropagates-held") if row is not None else None
        if effect is None:
            return None
        if target is None or self.state is None:
            return NOTHING
        held = self.held_by(target)
        if not any(not o.leaf for o in held):
            return NOTHING
        note = Note((row.target, "fit"), row.says, tuple(self.context), lambda: cited_site(row))
        notes = self.library_notes
        for origin in held:
            notes.setdefault(origin, note)
        passes = 2 if effect.get("times") == "repeatedly" else 1
        self.run_library_loop(node, passes, lambda: self.backward(node, Val(held), node))
        return NOTHING

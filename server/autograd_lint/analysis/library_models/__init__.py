"""Library models as data: what library code does that its source cannot show us cheaply.

One TOML file per library or framework in this folder (torch.toml, lightning.toml, ...),
all loaded by this one mechanism, the way CodeQL's "models as data" rows and Pysa's model
files describe libraries. A row names the library's objects by fully qualified name
(`target`, plus `aliases`: the same object imported from elsewhere), the distribution
and version range it holds for, what the library does in words (`says`, for evidence),
where in the library's source that is seen (`source`), and a list of effects from a
small closed vocabulary (`EFFECTS` below; a row with any other kind or parameter does
not load). Every row is checked against the installed library by
tests/test_library_models.py, which iterates this table itself.

    lookup("torch.optim.lbfgs.LBFGS.step")    -> the LBFGS.step row
    effects_of_class("snntorch.Leaky")        -> the class's own row and its methods' rows

Pure: stdlib only (tomllib, or tomli before Python 3.11), loaded on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType

# kind -> {parameter: type}; what each kind means is said in docs/libraries.md.
EFFECTS: dict[str, dict[str, type]] = {
    # Calls a callable argument (by name, or at `position`) `times`: "once", "repeatedly"
    # (several times within one call, at most `bound` times, an option of the object), or
    # "later" (kept and called after the call returns).
    "calls-argument": {"argument": str, "position": int, "times": str, "bound": str},
    # The result is data: no autograd history, whatever the arguments carry.
    "result-no-history": {},
    # Returns its arguments in order, each the same kind of object (one argument: itself).
    "result-arguments": {},
    # Returns an nn.Module.
    "result-module": {},
    # Calls backward() on the argument at `position`.
    "backward-of-argument": {"position": int},
    # Changes `.grad` of the parameters given at `position`, never their values.
    "modifies-grads": {"position": int},
    # Computes `attributes` from its parameters on first read and keeps them on the object:
    # later reads share one graph. Optionally, for the interpreter: the constructor's
    # positional `parameters`, the given ones whose graph __init__ already `builds`, which
    # lazy attributes each method or property `reads` ({method: [attribute]}), and the
    # methods whose result has `no-history`.
    "caches-lazily": {
        "attributes": list,
        "parameters": list,
        "builds": list,
        "reads": dict,
        "no-history": list,
    },
    # forward() keeps `attributes` on self from its input, read again by the next call,
    # unless the caller passes `unless-arguments` (forward's parameters) each time;
    # `reset-by` start afresh: qualified functions of the library called on the model,
    # or ".method" names called on the object.
    "keeps-state": {"attributes": list, "unless-arguments": list, "reset-by": list},
    # Keeps the argument (by name, or at `position`) as `attribute` of the object.
    "stores-argument": {"argument": str, "position": int, "attribute": str},
    # The framework back-propagates what this method returns, after it returns, unless
    # the object sets `unless-attribute` to False; `each-element`: a returned tuple's
    # elements one after the other (a backward each), not their sum.
    "backpropagates-return": {"unless-attribute": str, "each-element": bool},
    # The module given computes its weight from its parameters before every call (a
    # forward pre-hook, a parametrization), by ops that save those parameters: its calls
    # keep them for backward even over inputs without history.
    "reparametrizes-weight": {},
    # A fit loop: back-propagates, `times` ("repeatedly": at every iteration of a loop of
    # its own), a loss computed from what the object at `position` (a method's row: the
    # object itself) holds: what its constructor stored, and what the objects stored hold.
    "backpropagates-held": {"position": int, "times": str},
    # While the module is in eval mode its first call computes `attributes` from the
    # module's parameters and keeps them; later calls in eval mode reuse that graph.
    # Every call in training mode, and `train()`, clear them.
    "caches-while-evaluating": {"attributes": list},
    # Calls the callable argument (by name, at `position`) on data of its own, once, and
    # keeps the value for every later use (a result cache): what it returns is held.
    "caches-call-of-argument": {"argument": str, "position": int},
    # Returns a new tensor that requires grad: a leaf (a trainable variable).
    "result-leaf": {},
}
TIMES = ("once", "repeatedly", "later")
REQUIRED: dict[str, tuple[str, ...]] = {
    "calls-argument": ("times",),
    "backward-of-argument": ("position",),
    "modifies-grads": ("position",),
    "caches-lazily": ("attributes",),
    "keeps-state": ("attributes",),
    "stores-argument": ("attribute",),
    "backpropagates-held": ("times",),
    "caches-while-evaluating": ("attributes",),
    "caches-call-of-argument": ("argument", "position"),
}
ROW_KEYS = frozenset({"target", "aliases", "says", "source", "versions", "effects"})


class ModelError(ValueError):
    """A data file that does not follow the vocabulary (a bug in this package)."""


@dataclass(frozen=True)
class Effect:
    kind: str
    parameters: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def get(self, name: str, default=None):
        return self.parameters.get(name, default)

    def __getitem__(self, name: str):
        return self.parameters[name]


@dataclass(frozen=True)
class Row:
    target: str  # fully qualified: module path, then class and attribute names
    library: str  # the distribution, normalised (`pytorch-lightning`)
    versions: str  # a version range: comma-separated clauses, e.g. ">=2.0,<3"
    effects: tuple[Effect, ...]
    says: str  # what the library does, in words fit for a finding's evidence
    source: str  # where the library's source shows it (file, function)
    aliases: tuple[str, ...] = ()
    origin: str = ""  # the data file

    @property
    def names(self) -> tuple[str, ...]:
        return (self.target, *self.aliases)

    def effect(self, kind: str) -> Effect | None:
        return next((effect for effect in self.effects if effect.kind == kind), None)

    def holds_for(self, version: str | None) -> bool:
        """Whether the row covers this installed version (None: unknown, assumed yes)."""
        return version is None or version_in_range(version, self.versions)


class Models:
    """The rows of every data file, by qualified name."""

    def __init__(self, rows: tuple[Row, ...]):
        self.rows = rows
        self._by_name: dict[str, list[Row]] = {}
        for row in rows:
            for name in row.names:
                self._by_name.setdefault(name, []).append(row)

    def lookup(self, qualified_name: str, version: str | None = None) -> Row | None:
        """The row for an object, for the installed `version` of its library if known."""
        for row in self._by_name.get(qualified_name, ()):
            if row.holds_for(version):
                return row
        return None

    def effects_of_class(self, qualified_class: str, version: str | None = None) -> dict[str, Row]:
        """A class's rows: "" for the class itself, else by method name (`step`)."""
        found: dict[str, Row] = {}
        own = self.lookup(qualified_class, version)
        if own is not None:
            found[""] = own
        prefix = qualified_class + "."
        for name, rows in self._by_name.items():
            if name.startswith(prefix) and "." not in name[len(prefix) :]:
                row = next((r for r in rows if r.holds_for(version)), None)
                if row is not None:
                    found.setdefault(name[len(prefix) :], row)
        return found


def parse(text: str, origin: str) -> tuple[Row, ...]:
    """The rows of one data file: a `library`, a default `versions`, then `[[row]]`s."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"{origin}: {exc}") from exc
    library, versions = data.get("library"), data.get("versions")
    if not isinstance(library, str) or not isinstance(versions, str):
        raise ModelError(f"{origin}: needs `library` and `versions` strings")
    rows = []
    for number, raw in enumerate(data.get("row", ()), 1):
        where = f"{origin} row {number}"
        unknown = set(raw) - ROW_KEYS
        if unknown or not all(isinstance(raw.get(key), str) for key in ("target", "says")):
            raise ModelError(f"{where}: needs `target` and `says`; unknown keys {unknown}")
        effects = tuple(_effect(item, where) for item in raw.get("effects", ()))
        if not effects:
            raise ModelError(f"{where}: a row without effects says nothing")
        row_versions = raw.get("versions", versions)
        version_in_range("0", row_versions)  # raises on a malformed range
        rows.append(
            Row(
                target=raw["target"],
                library=library,
                versions=row_versions,
                effects=effects,
                says=raw["says"],
                source=str(raw.get("source", "")),
                aliases=tuple(raw.get("aliases", ())),
                origin=origin,
            )
        )
    return tuple(rows)


def _effect(item, where: str) -> Effect:
    if not isinstance(item, dict) or item.get("kind") not in EFFECTS:
        raise ModelError(f"{where}: effect {item!r} is not one of {sorted(EFFECTS)}")
    kind = item["kind"]
    allowed = EFFECTS[kind]
    parameters = {key: value for key, value in item.items() if key != "kind"}
    for key, value in parameters.items():
        if key not in allowed or not isinstance(value, allowed[key]):
            raise ModelError(f"{where}: {kind} does not take {key} = {value!r}")
    missing = [key for key in REQUIRED.get(kind, ()) if key not in parameters]
    if missing:
        raise ModelError(f"{where}: {kind} needs {', '.join(missing)}")
    if kind == "calls-argument" and parameters["times"] not in TIMES:
        raise ModelError(f"{where}: times must be one of {TIMES}")
    for key, value in parameters.items():
        if isinstance(value, list):
            parameters[key] = tuple(map(str, value))
        elif isinstance(value, dict):  # {name: [strings]}, e.g. the attributes methods read
            if not all(isinstance(v, list) for v in value.values()):
                raise ModelError(f"{where}: {kind} {key} maps names to lists")
            parameters[key] = MappingProxyType({k: tuple(map(str, v)) for k, v in value.items()})
    return Effect(kind, MappingProxyType(parameters))


_CLAUSE = re.compile(r"^\s*(==|!=|>=|<=|>|<)\s*([0-9][0-9.]*)\s*$")


def release(version: str) -> tuple[int, ...]:
    """The numeric release of a version: "2.13.0+cpu" -> (2, 13, 0), "1.0rc1" -> (1, 0)."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


def version_in_range(version: str, versions: str) -> bool:
    """PEP 440-like clauses over release numbers (pre-releases and local parts ignored);
    "*" or "" is every version."""
    if versions.strip() in ("", "*"):
        return True
    have = release(version)
    for clause in versions.split(","):
        match = _CLAUSE.match(clause)
        if match is None:
            raise ModelError(f"not a version clause: {clause!r} in {versions!r}")
        operator, bound = match.group(1), release(match.group(2))
        width = max(len(have), len(bound))
        left, right = have + (0,) * (width - len(have)), bound + (0,) * (width - len(bound))
        holds = {
            "==": left == right,
            "!=": left != right,
            ">=": left >= right,
            "<=": left <= right,
            ">": left > right,
            "<": left < right,
        }[operator]
        if not holds:
            return False
    return True


_models: Models | None = None


def models() -> Models:
    """Every data file of this package, parsed once."""
    global _models
    if _models is None:
        rows: list[Row] = []
        for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".toml"):
                rows.extend(parse(entry.read_text(encoding="utf-8"), entry.name))
        _models = Models(tuple(rows))
    return _models


def lookup(qualified_name: str, version: str | None = None) -> Row | None:
    return models().lookup(qualified_name, version)


def effects_of_class(qualified_class: str, version: str | None = None) -> dict[str, Row]:
    return models().effects_of_class(qualified_class, version)


def rows() -> tuple[Row, ...]:
    return models().rows

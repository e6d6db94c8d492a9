"""Summaries of installed library classes, found in the user's environment, cached on disk.

`LibrarySummaries(environment).class_state("snntorch.Leaky")` finds the class the way an
import would (environment.py: the module's source file; re-exports followed through
`from .x import Name` and `from .x import *` in `__init__.py` files), its bases through
each file's imports (relative ones too) up to `torch.nn.Module`, and hands the chain
to `analysis.library_models.state.forward_state`, which says what `forward` keeps on
`self` between calls, with the file and line of each assignment.

Only what is asked for is read: a class, its bases and the modules on the way, to a
depth (`MAX_HOPS` files followed per class). An answer is kept in memory and on disk,
keyed by the distribution and version of the class's top-level package and the class's
name, and it lists the content hash of every file it read: a cached answer holds while
those files hash the same, so a second open of a file importing snntorch hashes a few
files and reads one small JSON file instead of parsing snntorch; a library upgraded, or
another environment, has other keys. Classes of no installed distribution (the
project's own) are not cached on disk. A cache that cannot be read or written costs only
the time it would save.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from .analysis.library_models.state import (
    ClassState,
    forward_state,
    method_parameters,
    method_stores,
)
from .cache import analyzer_key, library_files_read, tells_library_reads
from .environment import Environment

log = logging.getLogger(__name__)

FORMAT = 7  # bump when ClassState or the walk changes: old cache entries are not read
MAX_HOPS = 24  # module files followed to find one class and its bases
# Where the chain stops: nn.Module's own forward is not the library's.
STOP_CLASSES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "object"})


def _top_level(tree: ast.Module):
    """The module's statements, and those inside its top-level `if` and `try` blocks (at
    any nesting), where packages put imports for type checkers (`if TYPE_CHECKING:`) or
    fallbacks (`try: ... except ImportError: ... else: ...`)."""
    todo = list(reversed(tree.body))
    while todo:
        statement = todo.pop()
        yield statement
        inner = []
        if isinstance(statement, ast.If):
            inner = [*statement.body, *statement.orelse]
        elif isinstance(statement, ast.Try):
            inner = [*statement.body, *statement.orelse, *statement.finalbody]
            for handler in statement.handlers:
                inner.extend(handler.body)
        todo.extend(reversed(inner))


def _shared_prefix(source: str, name: str) -> int:
    """How much of the class name the module's last part starts (`bert`, BertModel: 4)."""
    part = source.rpartition(".")[2].replace("_", "").lower()
    wanted = name.lower()
    length = 0
    while length < min(len(part), len(wanted)) and part[length] == wanted[length]:
        length += 1
    return length


def _resets(function: ast.FunctionDef, attributes: set[str]) -> bool:
    """Whether the method sets one of `attributes` of self to a constant or a detached
    value (`self.weight = None`, `self.h = self.h.detach()`)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        cut = isinstance(value, ast.Constant) or (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "detach"
        )
        for target in node.targets:
            if (
                cut
                and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and target.attr in attributes
            ):
                return True
    return False


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "autograd-lint", "library-summaries")


@dataclass
class _Module:
    name: str  # dotted
    path: Path
    tree: ast.Module
    digest: str
    is_package: bool

    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]


class LibrarySummaries:
    def __init__(self, environment: Environment, cache_dir: Path | str | None = None):
        self.environment = environment
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self._analyzer: str | None = None
        self._entries: dict[str, tuple[ClassState, tuple[str, ...]] | None] = {}
        self._stores: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {}
        self._modules: dict[str, _Module | None] = {}
        self._digests: dict[str, str] = {}
        self._touched: list[_Module] = []

    def class_state(self, qualified_class: str) -> ClassState | None:
        """What the class's forward keeps on self; None when its source cannot be found."""
        entry = self._entry(qualified_class)
        return entry[0] if entry else None

    def class_chain(self, qualified_class: str) -> tuple[str, ...]:
        """The class and its bases as found (depth first, left first), each named by its
        defining module (`transformers.models.bert.modeling_bert.BertModel`, ...,
        `transformers.modeling_utils.PreTrainedModel`): where an inherited method's model
        row is looked up. Empty when the class cannot be found."""
        entry = self._entry(qualified_class)
        return entry[1] if entry else ()

    @tells_library_reads
    def method_stores(self, qualified_class: str, method: str) -> dict[str, tuple[str, ...]]:
        """Which attributes of self the class's `method` stores each argument in
        ({"train_targets": ("train_targets",)} for gpytorch's ExactGP.__init__); empty
        when the class or method is not found. Kept in memory only."""
        key = (qualified_class, method)
        if key not in self._stores:
            self._touched = []
            hops = [MAX_HOPS]
            found = self._find_class(qualified_class, hops)
            chain = self._chain(*found, hops) if found is not None else []
            paths = [(str(m.path), node) for m, node in chain]
            self._stores[key] = method_stores(paths, method)[0] if chain else {}
        return self._stores[key]

    @tells_library_reads
    def method_parameters(self, qualified_class: str, method: str) -> tuple[str, ...]:
        """How a call of the class's `method` binds its arguments: the positional
        parameters (self left out), "*" for `*args`, the keyword-only ones; empty when not
        found. Memory only."""
        key = (qualified_class, "parameters", method)
        if key not in self._stores:
            self._touched = []
            hops = [MAX_HOPS]
            found = self._find_class(qualified_class, hops)
            chain = self._chain(*found, hops) if found is not None else []
            paths = [(str(m.path), node) for m, node in chain]
            self._stores[key] = method_parameters(paths, method) if chain else ()
        return self._stores[key]

    def reset_methods(self, qualified_class: str, attributes) -> tuple[str, ...]:
        """The class's methods (forward and __init__ aside) that reset a kept attribute:
        assign it a constant (`self.weight = None`) or a detached value. Memory only."""
        key = (qualified_class, "reset", tuple(attributes))
        if key not in self._stores:
            hops = [MAX_HOPS]
            found = self._find_class(qualified_class, hops)
            chain = self._chain(*found, hops) if found is not None else []
            wanted, resets = set(attributes), []
            for _, cls in chain:
                for item in cls.body:
                    if (
                        isinstance(item, ast.FunctionDef)
                        and item.name not in ("forward", "__init__")
                        and _resets(item, wanted)
                    ):
                        resets.append(item.name)
            self._stores[key] = tuple(dict.fromkeys(resets))
        return self._stores[key]

    @tells_library_reads  # a result cache entry names the files an answer rests on
    def _entry(self, qualified_class: str):
        if qualified_class not in self._entries:
            self._entries[qualified_class] = self._compute(qualified_class)
        return self._entries[qualified_class]

    def _compute(self, qualified_class: str) -> tuple[ClassState, tuple[str, ...]] | None:
        key = self._cache_file(qualified_class)
        cached = self._read_cache(key) if key is not None else None
        if cached is not None:
            return cached
        self._touched: list[_Module] = []
        hops = [MAX_HOPS]
        found = self._find_class(qualified_class, hops)
        if found is None:
            return None
        chain = self._chain(*found, hops)
        state = forward_state(qualified_class, [(str(m.path), n) for m, n in chain])
        if hops[0] <= 0:
            state = ClassState(state.qualified_name, state.kept, complete=False)
        names = tuple(f"{m.name}.{node.name}" for m, node in chain)
        if key is not None:
            self._write_cache(key, state, names, self._touched)
        return state, names

    # -- finding classes ----------------------------------------------------------------
    def _module(self, name: str) -> _Module | None:
        if name not in self._modules:
            self._modules[name] = self._load(name)
        found = self._modules[name]
        if found is not None:
            library_files_read({str(found.path): found.digest})
            if found not in self._touched:
                self._touched.append(found)  # what this answer depends on
        return found

    def _load(self, name: str) -> _Module | None:
        path = self.environment.resolve_module_file(name)
        if path is None:
            return None
        try:
            data = path.read_bytes()
            tree = ast.parse(data, str(path))
        except (OSError, SyntaxError, ValueError, RecursionError) as exc:
            log.info("not summarising %s: %s", path, exc)
            return None
        digest = hashlib.sha256(data).hexdigest()
        self._digests[str(path)] = digest
        return _Module(name, path, tree, digest, path.name == "__init__.py")

    def _find_class(self, qualified: str, hops: list[int]) -> tuple[_Module, ast.ClassDef] | None:
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self._module(".".join(parts[:cut]))
            if module is not None:
                if cut != len(parts) - 1:
                    return None  # a nested attribute of a class: not followed
                return self._class_in(module, parts[-1], hops)
        return None

    def _class_in(self, module: _Module, name: str, hops: list[int]):
        """The class `name` as `module` defines or imports it."""
        hops[0] -= 1
        if hops[0] < 0:
            return None
        stars = []
        for statement in module.tree.body:
            if isinstance(statement, ast.ClassDef) and statement.name == name:
                return module, statement
        for statement in _top_level(module.tree):
            if not isinstance(statement, ast.ImportFrom):
                continue
            source = self._absolute(module, statement)
            for alias in statement.names:
                if alias.name == "*":
                    stars.append(source)
                elif (alias.asname or alias.name) == name and source:
                    return self._find_class(f"{source}.{alias.name}", hops)
        # `from .models import *` over hundreds of packages (transformers): the ones named
        # like the class first (`bert` for BertModel), so the hop budget reaches them.
        stars.sort(key=lambda source: -_shared_prefix(source or "", name))
        for source in stars:
            inner = self._module(source) if source else None
            if inner is not None:
                found = self._class_in(inner, name, hops)
                if found is not None:
                    return found
        return None

    @staticmethod
    def _absolute(module: _Module, statement: ast.ImportFrom) -> str | None:
        if not statement.level:
            return statement.module
        package = module.package().split(".") if module.package() else []
        if statement.level - 1 > len(package):
            return None
        base = package[: len(package) - (statement.level - 1)]
        return ".".join([*base, *([statement.module] if statement.module else [])]) or None

    def qualified_in(self, module_name: str, expression: ast.expr) -> str | None:
        """An expression of a library module's source (a base class, a constructor called
        in `__init__`: `nn.LayerNorm`, `BertEmbeddings`) as the dotted name it means there,
        through that module's imports; None when the module or the name is not found."""
        module = self._module(module_name)
        return self._qualified(module, expression) if module is not None else None

    def _qualified(self, module: _Module, expression) -> str | None:
        """A base class expression (`BaseNode`, `base.MemoryModule`, `nn.Module`) as the
        dotted name it means in that module."""
        parts: list[str] = []
        while isinstance(expression, ast.Attribute):
            parts.insert(0, expression.attr)
            expression = expression.value
        if not isinstance(expression, ast.Name):
            return None
        head = expression.id
        for statement in module.tree.body:
            if isinstance(statement, ast.ClassDef) and statement.name == head:
                return ".".join([module.name, head, *parts])
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if (alias.asname or alias.name.partition(".")[0]) == head:
                        bound = alias.name if alias.asname else head
                        return ".".join([bound, *parts])
            if isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    if (alias.asname or alias.name) == head:
                        source = self._absolute(module, statement)
                        return ".".join([source, alias.name, *parts]) if source else None
        return ".".join([head, *parts]) if head == "object" else None

    def _chain(self, module: _Module, node: ast.ClassDef, hops: list[int]):
        """The class and its bases, depth first and left first, each once."""
        chain: list[tuple[_Module, ast.ClassDef]] = []
        seen: set[tuple[str, str]] = set()
        todo = [(module, node)]
        while todo:
            current, cls = todo.pop(0)
            if (str(current.path), cls.name) in seen:
                continue
            seen.add((str(current.path), cls.name))
            chain.append((current, cls))
            bases = []
            for base in cls.bases:
                qualified = self._qualified(current, base)
                if qualified is None or qualified in STOP_CLASSES:
                    continue
                found = self._find_class(qualified, hops)
                if found is not None and f"{found[0].name}.{found[1].name}" not in STOP_CLASSES:
                    bases.append(found)
            todo[0:0] = bases
        return chain

    # -- the disk cache -----------------------------------------------------------------
    def _cache_file(self, qualified_class: str) -> Path | None:
        """Where the answer for a class is kept: by its top-level package's distribution
        and version (None: not an installed distribution, e.g. the project's own code)."""
        top = self.environment.resolve_module_file(qualified_class.partition(".")[0])
        owner = self.environment.distribution_of(top) if top is not None else None
        if owner is None:
            return None
        folder = f"{owner.name}-{owner.version}"
        return self.cache_dir / self._analyzer_folder() / folder / f"{qualified_class}.json"

    def _analyzer_folder(self) -> str:
        """The summaries' format and the analyzer that computed them: a tree whose summary
        code differs (another version, a developer's edit) never reads this one's answers,
        whether or not FORMAT was bumped; asked once per LibrarySummaries."""
        if self._analyzer is None:
            self._analyzer = f"v{FORMAT}-{analyzer_key()}"
        return self._analyzer

    def _read_cache(self, key: Path) -> tuple[ClassState, tuple[str, ...]] | None:
        try:
            data = json.loads(key.read_text(encoding="utf-8"))
            for path, digest in data["depends"].items():
                if self._digest(path) != digest:
                    return None  # a base class's file changed
            library_files_read(data["depends"])
            return ClassState.from_json(data["state"]), tuple(map(str, data["chain"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _digest(self, path: str) -> str | None:
        if path not in self._digests:
            try:
                self._digests[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            except OSError:
                return None
        return self._digests[path]

    def _write_cache(self, key: Path, state: ClassState, chain, modules: list[_Module]) -> None:
        data = {
            "state": state.to_json(),
            "chain": list(chain),
            "depends": {str(m.path): m.digest for m in modules},
        }
        try:
            key.parent.mkdir(parents=True, exist_ok=True)
            partial = key.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(data), encoding="utf-8")
            os.replace(partial, key)
        except OSError as exc:
            log.info("library summary cache not written (%s)", exc)

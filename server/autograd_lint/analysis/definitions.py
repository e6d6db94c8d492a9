"""The file's classes and functions as the interpreter sees them."""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field

from .exprs import dotted_name
from .frameworks import LIGHTNING_MODULES
from .roles import qualify
from .syntax_facts import grad_mode_of
from .values import MODULE, OBJECT


class FunctionRef:
    """A function or method definition. A method knows its class weakly: the class holds
    its methods, and a reference back would make a cycle that keeps a replaced block's
    syntax tree alive until the cyclic collector runs (the server runs it rarely)."""

    __slots__ = ("node", "block", "_owner")

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef, block, owner=None):
        self.node = node
        self.block = block
        self._owner = weakref.ref(owner) if owner is not None else None

    @property
    def owner(self) -> ClassInfo | None:
        return self._owner() if self._owner is not None else None

    @property
    def no_grad(self) -> bool:
        # `@torch.no_grad()`, `@torch.inference_mode`, `@torch.set_grad_enabled(False)`: the
        # same rule as a `with` statement (`@torch.inference_mode(False)` leaves grad on).
        return any(grad_mode_of(decorator) is False for decorator in self.node.decorator_list)


@dataclass(eq=False)
class ClassInfo:
    name: str
    node: ast.ClassDef
    block: object
    bases: list[str]
    methods: dict[str, FunctionRef] = field(default_factory=dict)
    # The file's own classes among `bases`, linked once every class is known (not the
    # file's class table itself: that holds this class, a cycle again).
    local_bases: tuple[ClassInfo, ...] = field(default=(), repr=False)
    # The file's imports (local name -> dotted name), once linked: what the other bases are.
    aliases: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def link_bases(self, registry: dict[str, ClassInfo], aliases: dict | None = None) -> None:
        found = (registry.get(base) for base in self.bases)
        self.local_bases = tuple(b for b in found if b is not None and b is not self)
        if aliases is not None:
            self.aliases = aliases

    @property
    def is_module(self) -> bool:
        return self._is_module(set())

    def _is_module(self, seen: set[int]) -> bool:
        seen.add(id(self))
        if any(is_module_class(base, self.aliases) for base in self.bases):
            return True
        for local in self.local_bases:
            if id(local) not in seen and local._is_module(seen):
                return True
        return "forward" in self.methods

    def find_method(self, name: str, _seen=None) -> FunctionRef | None:
        found = self.methods.get(name)
        if found is not None:
            return found
        seen = _seen or {id(self)}
        for local in self.local_bases:
            if id(local) not in seen:
                seen.add(id(local))
                found = local.find_method(name, seen)
                if found is not None:
                    return found
        return None


# torch.nn classes that are not modules (a Parameter subclass is a tensor).
NOT_MODULES = frozenset({"Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"})


def is_module_class(base: str, aliases: dict[str, str]) -> bool:
    """Whether a base class, as spelled in the class statement, is torch.nn.Module or one
    of its torch subclasses (`nn.Module`, `nn.Sequential`, `Module` from `from torch.nn
    import Module`) or Lightning's LightningModule: resolved through the file's imports,
    never by how the class is called (a local base is followed by `local_bases`)."""
    qualified = qualify(base, aliases)
    if qualified in LIGHTNING_MODULES:
        return True
    head, _, last = qualified.rpartition(".")
    return (head in ("torch.nn", "torch.nn.modules") or head.startswith("torch.nn.modules.")) and (
        last[:1].isupper() and last not in NOT_MODULES
    )


def make_class_info(
    node: ast.ClassDef, block, registry: dict | None = None, aliases: dict | None = None
) -> ClassInfo:
    """The class's info; its local bases are linked now when `registry` is given (a class
    met while running code, with the file's imports to resolve the other bases), else by
    the caller once every top-level class is known."""
    bases = [dotted_name(base) or "" for base in node.bases]
    info = ClassInfo(node.name, node, block, bases)
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.methods[statement.name] = FunctionRef(statement, block, info)
    if registry is not None:
        info.link_bases(registry, aliases)
    return info


def api_kind_of(info: ClassInfo) -> int:
    return MODULE if info.is_module else OBJECT

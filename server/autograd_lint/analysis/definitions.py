"""The file's classes and functions as the interpreter sees them."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from . import torch_api as api
from .exprs import dotted_name
from .values import MODULE, OBJECT


@dataclass(eq=False)
class FunctionRef:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    block: object
    owner: ClassInfo | None = None

    @property
    def no_grad(self) -> bool:
        for decorator in self.node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = dotted_name(target) or ""
            if api.last_part(name) in api.NO_GRAD_CONTEXTS:
                return True
        return False


@dataclass(eq=False)
class ClassInfo:
    name: str
    node: ast.ClassDef
    block: object
    bases: list[str]
    methods: dict[str, FunctionRef] = field(default_factory=dict)
    registry: dict[str, ClassInfo] = field(default_factory=dict, repr=False)

    @property
    def is_module(self) -> bool:
        for base in self.bases:
            if base.endswith("Module") or api.last_part(base) in ("Module", "LightningModule"):
                return True
            local = self.registry.get(base)
            if local is not None and local is not self and local.is_module:
                return True
        return "forward" in self.methods

    def find_method(self, name: str, _seen=None) -> FunctionRef | None:
        found = self.methods.get(name)
        if found is not None:
            return found
        seen = _seen or {id(self)}
        for base in self.bases:
            local = self.registry.get(base)
            if local is not None and id(local) not in seen:
                seen.add(id(local))
                found = local.find_method(name, seen)
                if found is not None:
                    return found
        return None


def make_class_info(node: ast.ClassDef, block, registry: dict) -> ClassInfo:
    bases = [dotted_name(base) or "" for base in node.bases]
    info = ClassInfo(node.name, node, block, bases, registry=registry)
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.methods[statement.name] = FunctionRef(statement, block, info)
    return info


def api_kind_of(info: ClassInfo) -> int:
    return MODULE if info.is_module else OBJECT

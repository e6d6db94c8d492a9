"""Rename every name a Python file binds to a neutral one (`v1`, `v2`, ...), in place.

`rename_source(text)` rewrites identifier by identifier, so lines never move and findings
stay comparable by line: variables, parameters, functions, classes, loop and comprehension
targets, `global`/`nonlocal` names, attributes assigned on `self` and class members all
become neutral, one spelling to one neutral name across the file. What the file does not own
keeps its name, so the renamed file runs the same: imports, builtins, dunders, the undefined
names of partial snippets, attributes torch objects have (`.step`, `.weight`), attributes
read on imported modules, keyword arguments of foreign callees, the receiver (`self`), names
also spelled as strings (`getattr`, `register_buffer`, `"prev" in locals()`), and the members
of a class derived from an imported class that the base may call or read (`forward`,
`training_step`, `automatic_optimization`). bench/neutral_names.py measures with it.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from functools import cache

from neutral_facts import Facts, Site, class_locals, dunder, root_name, unbound_reads

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def torch_members() -> frozenset[str]:
    """Attribute names torch's own objects answer to: renaming an own attribute that shares
    one (`self.step`, `self.weight`) would also rename `optimizer.step`, `fc.weight`."""
    import torch
    from torch import nn

    objects = [torch.Tensor, torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler]
    objects += [nn.Module(), nn.Linear(1, 1), nn.Conv2d(1, 1, 1), nn.BatchNorm1d(1)]
    objects += [nn.LSTM(1, 1), nn.GRU(1, 1), nn.Embedding(1, 1), nn.LayerNorm(1)]
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    objects += [optimizer, torch.optim.lr_scheduler.StepLR(optimizer, 1)]  # instance attrs
    return frozenset(name for obj in objects for name in dir(obj))


def _resolve(qualified: str):
    """The class a torch base names (`torch.nn.Module`), or None: other bases are not imported."""
    if not qualified.startswith("torch."):
        return None
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
            for part in parts[cut:]:
                obj = getattr(obj, part)
            return obj
        except (ImportError, AttributeError):
            continue
    return None


def _protocol(facts: Facts) -> tuple[set[str], set[str]]:
    """Members of classes derived from an imported class that the base may call or read.

    A torch base is imported and asked (`dir`); any other base is not imported, so all the
    class's members are kept, the attributes it sets on `self` and never reads itself
    (`self.automatic_optimization = False` is read by Lightning, not by the file), and its
    methods' parameters (torch_geometric matches `message(self, x_j)` to `propagate(x=...)`
    by name). Returns the members and the parameter names to keep."""
    keep: set[str] = set()
    params: set[str] = set()

    def imported_bases(cls: ast.ClassDef, seen: set[str]) -> list[str | None]:
        found: list[str | None] = []
        for base in cls.bases:
            root = root_name(base)
            if isinstance(base, ast.Name) and base.id in facts.classes:
                if base.id not in seen:
                    found += imported_bases(facts.classes[base.id], seen | {base.id})
            elif root in facts.imports and isinstance(base, ast.Name | ast.Attribute):
                found.append(facts.imports[root] + ast.unparse(base)[len(root) :])
            elif root != "object":
                found.append(None)
        return found

    for name, cls in facts.classes.items():
        members = class_locals(cls) | facts.class_attrs.get(name, set())
        for qualified in imported_bases(cls, {name}):
            base = _resolve(qualified) if qualified else None
            if base is not None:
                keep |= members & set(dir(base))
            else:
                keep |= class_locals(cls) | (facts.class_attrs.get(name, set()) - facts.loads)
                methods = [m.args for m in cls.body if isinstance(m, ast.FunctionDef)]
                params |= {a.arg for one in methods for a in [*one.args, *one.kwonlyargs]}
    return keep, params


def _keywords(args: list[ast.arguments], facts: Facts | None = None) -> set[str]:
    """Keywords the functions take; with facts, also those a `**kwargs` may forward to any
    function of the file."""
    found = {a.arg for one in args for a in [*one.args, *one.kwonlyargs]}
    if facts is not None and any(one.kwarg for one in args):
        found |= _keywords(facts.arglists())
    return found


def _class_keywords(facts: Facts, cls: ast.ClassDef, depth: int = 0) -> set[str]:
    """Keywords a local class's constructor takes: its (or a local base's) `__init__`
    parameters, or its annotated fields (dataclasses)."""
    found = {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign)}
    found |= {s.target.id for s in cls.body if isinstance(getattr(s, "target", None), ast.Name)}
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            return found | _keywords([stmt.args], facts)
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in facts.classes and depth < 20:
            found |= _class_keywords(facts, facts.classes[base.id], depth + 1)
    return found


def _keyword_is_local(site: Site, facts: Facts, unbound: set[str]) -> bool:
    """Whether a call's keyword names a parameter of a function this file defines (then it
    is renamed with the parameter); keywords of imported or unknown callees stay."""
    kind, callee, *rest = site.callee + (None,)
    if kind == "name":
        if callee in facts.imports or callee in unbound:
            return False
        if callee in facts.classes:
            return site.name in _class_keywords(facts, facts.classes[callee])
        if callee in facts.functions:
            return site.name in _keywords(facts.functions[callee], facts)
    if kind == "member":
        if rest[0] in facts.imports:
            return False
        if callee in facts.classes:
            return site.name in _class_keywords(facts, facts.classes[callee])
        if callee in facts.methods or callee in facts.functions:  # `ns.make(x=1)`, too
            arglists = facts.methods.get(callee, []) + facts.functions.get(callee, [])
            return site.name in _keywords(arglists, facts)
        if callee not in facts.own_attrs:  # an inherited or foreign method: `self.log(...)`
            return False
    return site.name in _keywords(facts.arglists())  # a variable holding a callable: `model(h=h)`


@dataclass
class Renamed:
    text: str
    mapping: dict[str, str]  # original spelling -> neutral name


def _lines(source: str) -> list[str]:
    # Line ends as the tokenizer counts them (not str.splitlines, which also splits on \f).
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)


def rename_source(source: str, only: set[str] | None = None, rename_self=False) -> Renamed:
    """The file with the names it binds made neutral (only those in `only`, when given;
    the methods' receivers, `self` and `cls`, too with rename_self).

    Raises SyntaxError if the file does not parse, ValueError if a name is not where ast
    says it is (the rename would not be exact)."""
    tree = ast.parse(source)
    lines = _lines(source)
    facts = Facts(lines, rename_self)
    facts.visit(tree)
    unbound = unbound_reads(source)
    protocol_members, protocol_params = _protocol(facts)
    keep = set(facts.imports) | unbound | (facts.strings if facts.dynamic else set())
    # A foreign call's keywords may come back as attributes: SimpleNamespace(lr=...).lr
    foreign = {
        s.name
        for s in facts.sites
        if s.kind == "keyword" and not _keyword_is_local(s, facts, unbound)
    }
    if facts.unpacks:  # `model(**batch)`: keys built by dict(x=...) or {"x": ...} meet `x`
        params = _keywords(facts.arglists())
        keep |= params & (facts.strings | foreign)
    # A lambda called by keyword is called through whatever holds it: keep its parameters.
    keep |= facts.lambda_params & {s.name for s in facts.sites if s.kind == "keyword"}
    names = {n for n in facts.bound - keep - protocol_params if not dunder(n)}
    protected = torch_members() | facts.import_attrs | facts.strings | protocol_members | foreign
    members = {a for a in facts.own_attrs - protected if not dunder(a)}
    if only is not None:
        names, members = names & only, members & only
    chosen = {"name": names, "member": members}
    renamed = [
        site
        for site in sorted(facts.sites, key=lambda s: (s.line, s.col))
        if (site.name in chosen[site.kind] if site.kind != "keyword" else site.name in names
            and _keyword_is_local(site, facts, unbound))
    ]  # fmt: skip
    used = set(IDENT.findall(source))
    fresh = (f"v{i}" for i in range(1, 1 << 30) if f"v{i}" not in used)
    mapping: dict[str, str] = {}
    for site in renamed:
        if site.name not in mapping:
            mapping[site.name] = next(fresh)
    edits: dict[int, list[tuple[int, Site]]] = {}
    for site in renamed:
        text = lines[site.line - 1]
        col = len(text.encode()[: site.col].decode())
        if text[col : col + len(site.name)] != site.name:
            raise ValueError(f"line {site.line}: {site.name!r} not at column {col}")
        edits.setdefault(site.line - 1, []).append((col, site))
    for index, line_edits in edits.items():
        text = lines[index]
        for col, site in sorted(dict(line_edits).items(), reverse=True):
            text = text[:col] + mapping[site.name] + text[col + len(site.name) :]
        lines[index] = text
    return Renamed("".join(lines), mapping)

"""What a Python file binds and where each identifier sits: the facts neutral_renamer uses.

`Facts` walks the tree once, with its scopes, and records every identifier occurrence as a
`Site` in one of two namespaces: "name" (variables, parameters, functions, classes) or
"member" (attributes, and the names a class body binds, which are its members), plus the
"keyword" arguments of calls with how the call names its callee. Beside them it records what
decides whether a spelling is the file's own: what it binds, imports, assigns on `self`,
reads on imported modules, and spells in strings.
"""

from __future__ import annotations

import ast
import re
import symtable
from dataclasses import dataclass, field

OPTION = re.compile(r"(--?)?[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
DYNAMIC_SCOPE = {"locals", "globals", "vars", "eval", "exec"}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def class_locals(cls: ast.ClassDef) -> set[str]:
    """Names bound directly in a class body (its members), not in the scopes it nests."""
    found: set[str] = set()
    todo: list[ast.AST] = list(cls.body)
    while todo:
        node = todo.pop()
        if isinstance(node, SCOPES) and not isinstance(node, ast.Lambda):
            found.add(node.name)
            todo.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        if not isinstance(node, (ast.Lambda, *COMPREHENSIONS)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def unbound_reads(source: str) -> set[str]:
    """Names read somewhere as globals the module never binds: builtins used as builtins
    and the undefined names of partial snippets. A file does not own them."""
    top = symtable.symtable(source, "<renamed>", "exec")

    def bound(name: str) -> bool:
        try:
            return top.lookup(name).is_local()
        except KeyError:
            return False

    found, tables = set(), [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for sym in table.get_symbols():
            global_read = sym.is_referenced() and not sym.is_local() and not sym.is_free()
            if global_read and not bound(sym.get_name()):
                found.add(sym.get_name())
    return found


@dataclass
class Site:
    kind: str  # "name" (variable namespace), "member" (attribute namespace) or "keyword"
    name: str
    line: int
    col: int  # UTF-8 byte offset, as ast gives it
    callee: tuple = ()  # keyword sites: how the call names its callee


@dataclass
class Facts(ast.NodeVisitor):
    lines: list[str]
    rename_self: bool = False  # by default the receiver keeps its conventional spelling
    sites: list[Site] = field(default_factory=list)
    bound: set[str] = field(default_factory=set)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified
    own_attrs: set[str] = field(default_factory=set)
    loads: set[str] = field(default_factory=set)  # attribute names read anywhere
    import_attrs: set[str] = field(default_factory=set)  # read on imports and parameters
    strings: set[str] = field(default_factory=set)
    dynamic: bool = False  # locals(), globals(), ... look names up by their spelling
    lambda_params: set[str] = field(default_factory=set)
    unpacks: bool = False  # f(**d): a dict's keys, spelled elsewhere, meet parameter names
    functions: dict[str, list[ast.arguments]] = field(default_factory=dict)
    methods: dict[str, list[ast.arguments]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    class_attrs: dict[str, set[str]] = field(default_factory=dict)  # assigned on self
    # (kind, class node or None, class members, self name) per enclosing scope
    scope: list[tuple] = field(default_factory=lambda: [("module", None, set(), None)])
    # The parameters (receiver aside) of each enclosing function: what they hold is the
    # caller's object, often a library's (`bert.embeddings`), whose attributes keep their names.
    parameters: list[set] = field(default_factory=lambda: [set()])

    def arglists(self) -> list[ast.arguments]:
        return [a for v in [*self.functions.values(), *self.methods.values()] for a in v]

    def _site(self, kind, name, line, col, callee=()):
        self.sites.append(Site(kind, name, line, col, callee))

    def _find(self, node, pattern: str, name: str, last=False, kind="name") -> None:
        """Sites ast gives no position for (`def NAME`, `global a, b`, `as NAME`): search
        the node's own text."""
        line, col = node.lineno, node.col_offset
        text = self.lines[line - 1].encode()[col:].decode(errors="replace")
        if node.end_lineno == line:
            text = self.lines[line - 1].encode()[col : node.end_col_offset].decode()
        hits = list(re.finditer(pattern.format(re.escape(name)), text))
        if hits:
            start = hits[-1 if last else 0].start("n")
            self._site(kind, name, line, col + len(text[:start].encode()))

    def _kind(self, name: str) -> str:
        kind, _, members, _ = self.scope[-1]
        return "member" if kind == "class" and name in members else "name"

    def visit_Import(self, node):
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            self.imports[local] = alias.name if alias.asname else local

    def visit_ImportFrom(self, node):
        for alias in node.names:
            self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def visit_FunctionDef(self, node):
        for child in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            self.visit(child) if child else None
        kind, cls, _, _ = self.scope[-1]
        in_class = kind == "class"
        (self.methods if in_class else self.functions).setdefault(node.name, []).append(node.args)
        self._find(node, r"def\s+(?P<n>{}\b)", node.name, kind="member" if in_class else "name")
        self.bound.add(node.name) if not in_class else None
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        args += [a for a in (node.args.vararg, node.args.kwarg) if a]
        static = any(root_name(d) == "staticmethod" for d in node.decorator_list)
        me = args[0].arg if in_class and args and not static else None
        for arg in args:
            self.visit(arg.annotation) if arg.annotation else None
            # `self`/`cls` keep their spelling unless asked: the receiver is known by position
            if arg.arg != me or self.rename_self:
                self.bound.add(arg.arg)
                self._site("name", arg.arg, arg.lineno, arg.col_offset)
        self.visit(node.returns) if node.returns else None
        # A nested function still sees the method's receiver through its closure.
        self.scope.append(("function", cls, set(), me if in_class else self.scope[-1][3]))
        self.parameters.append({a.arg for a in args if a.arg != me})
        for stmt in node.body:
            self.visit(stmt)
        self.parameters.pop()
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        for child in [*node.args.defaults, *node.args.kw_defaults]:
            self.visit(child) if child else None
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            self.bound.add(arg.arg)
            self.lambda_params.add(arg.arg)
            self._site("name", arg.arg, arg.lineno, arg.col_offset)
        self.scope.append(("function", self.scope[-1][1], set(), self.scope[-1][3]))
        self.visit(node.body)
        self.scope.pop()

    def visit_ClassDef(self, node):
        for child in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(child)
        in_class = self.scope[-1][0] == "class"
        self.classes[node.name] = node
        self._find(node, r"class\s+(?P<n>{}\b)", node.name, kind="member" if in_class else "name")
        self.bound.add(node.name) if not in_class else None
        members = class_locals(node)
        self.own_attrs |= members
        self.scope.append(("class", node, members, None))
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def _comprehension(self, node):
        first, *rest = node.generators
        self.visit(first.iter)  # evaluated in the enclosing scope
        self.scope.append(("function", self.scope[-1][1], set(), self.scope[-1][3]))
        self.visit(first.target)
        for cond in first.ifs:
            self.visit(cond)
        for gen in rest:
            self.visit(gen)
        for part in ("elt", "key", "value"):
            self.visit(getattr(node, part)) if hasattr(node, part) else None
        self.scope.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load) and self._kind(node.id) == "name":
            self.bound.add(node.id)
        self._site(self._kind(node.id), node.id, node.lineno, node.col_offset)

    def visit_Attribute(self, node):
        self.visit(node.value)
        if isinstance(node.ctx, ast.Load):
            self.loads.add(node.attr)
        elif isinstance(node.value, ast.Name) and node.value.id == self.scope[-1][3]:
            self.own_attrs.add(node.attr)
            self.class_attrs.setdefault(self.scope[-1][1].name, set()).add(node.attr)
        if isinstance(node.value, ast.Name) and (
            node.value.id in self.imports or node.value.id in self.parameters[-1]
        ):
            self.import_attrs.add(node.attr)
        width = len(node.attr.encode())
        self._site("member", node.attr, node.end_lineno, node.end_col_offset - width)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name):
            self.dynamic |= func.id in DYNAMIC_SCOPE
            callee = ("name", func.id)
        elif isinstance(func, ast.Attribute):
            callee = ("member", func.attr, root_name(func.value))
        else:
            callee = ("unknown",)
        for kw in node.keywords:
            self.unpacks |= kw.arg is None
            if kw.arg:
                self._site("keyword", kw.arg, kw.lineno, kw.col_offset, callee)

    def visit_Global(self, node):
        for name in node.names:
            self._find(node, r"\b(?P<n>{})\b", name)

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node):
        if node.name:
            self.bound.add(node.name)
            self._find(node, r"\bas\s+(?P<n>{})\b", node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        self.generic_visit(node)
        if node.name:
            self.bound.add(node.name)
            self._find(node, r"\b(?P<n>{})\b", node.name, last=True)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node):
        self.generic_visit(node)
        if node.rest:
            self.bound.add(node.rest)
            self._find(node, r"\*\*\s*(?P<n>{})\b", node.rest)

    def visit_Constant(self, node):
        # `getattr(m, "hidden")`, `register_buffer("running", ...)`, argparse's "--lr-max"
        # and state-dict keys ("fc1.weight") name attributes too
        if isinstance(node.value, str) and OPTION.fullmatch(node.value):
            self.strings.update(node.value.lstrip("-").replace("-", "_").split("."))

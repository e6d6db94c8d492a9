"""A file's top-level definitions and the analysis roots they give, with imports resolved.

`Program` is built from a file's blocks without running anything: classes, functions,
the module-level code, and what `from x import y` / `import x` bring in from other
files of the project (through a resolver, see `modules.py`).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from typing import NamedTuple

from .blocks import IDENTIFIER, Block
from .definitions import FunctionRef, make_class_info
from .library_fits import fit_markers
from .roles import Roles, import_aliases
from .sole_definers import may_be_run_by_name
from .values import CLASS, FUNC, NAMESPACE, Binding, Site, Val

BACKWARD_MARKERS = ("backward", "autograd")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
CLOSURES = "closures"  # the key of the last run's dependency closures in Program's memo
RELEVANT = "relevant"  # and of its relevant functions (ids) with the names of all functions


def is_relevant(text: str) -> bool:
    # A library's fit loop back-propagates for the file (library_fits.py).
    return any(marker in text for marker in BACKWARD_MARKERS) or any(
        marker in text for marker in fit_markers()
    )


class Program:
    """What the file defines at the top level, with dependencies by name."""

    def __init__(self, blocks: list[Block], path: str = "", resolver=None, memo=None):
        """`memo`: a dict the caller keeps between runs on one file (AnalysisCache does);
        blocks still there keep their definitions, and their class and function objects."""
        self.path = path
        self.resolver = resolver
        self.imported: list = []  # the ModuleSummary objects this file's imports reached
        self.blocks = [b for b in blocks if b.error is None]
        self.classes = {}
        self.definitions: dict[str, Binding] = {}
        self.definers: dict[str, list[Block]] = {}
        self.module_code: list[tuple[Block, list]] = []
        self.functions: list[FunctionRef] = []
        defined_classes = []
        previous = memo if memo is not None else {}
        current = {}
        added_names: set[str] = set()  # what the blocks new to this run define
        added_functions: list[FunctionRef] = []
        for block in self.blocks:
            kept = previous.get(id(block))
            parts = kept[1] if kept is not None and kept[0] is block else _definitions_of(block)
            current[id(block)] = (block, parts)
            if kept is None or kept[0] is not block:
                added_names |= _definer_names(parts)
                added_functions.extend(parts.functions)
            for name in parts.defines:
                self.definers.setdefault(name, []).append(block)
            for name, binding in parts.bindings:
                if binding is None:  # an import, resolved afresh: other files change
                    if resolver is not None:
                        bind_import(name, Site(block, name), resolver, path,
                                    self.imported, self.definitions)  # fmt: skip
                    continue
                if binding.val.kind == CLASS:
                    defined_classes.append(binding.val.ref)
                    self.classes[name] = binding.val.ref
                    # A call `x.<method>(...)` on an unseen object may run this class's
                    # method (sole_definers.py): the caller depends on the class's block,
                    # so adding or removing a second definer re-runs it.
                    for method in binding.val.ref.methods:
                        if may_be_run_by_name(method) and method not in parts.defines:
                            self.definers.setdefault(method, []).append(block)
                self.definitions[name] = binding
            self.functions.extend(parts.functions)
            if parts.code:
                self.module_code.append((block, parts.code))
        aliases = import_aliases(self.blocks) if defined_classes else None  # what bases are
        for info in defined_classes:  # a class defined twice: both copies
            info.link_bases(self.classes, aliases)
        self._closures: dict[tuple, tuple[frozenset, frozenset]] = {}
        self._last_closures: dict = {}
        self._gone: frozenset[int] = frozenset()
        self._memo = memo
        self._relevance_change = None
        if memo is not None:
            last_closures = previous.pop(CLOSURES, {})
            last_relevant = previous.pop(RELEVANT, None)
            gone = [i for i, kept in previous.items() if current.get(i, (None,))[0] is not kept[0]]
            gone_names = set().union(*(_definer_names(previous[i][1]) for i in gone))
            # A closure that reached no block gone (edited, removed) is still the closure,
            # unless it reached a block that names what only a new block defines.
            new_names = added_names - gone_names
            touching = [
                id(b) for b in self.blocks if new_names and not b.names.isdisjoint(new_names)
            ]
            self._last_closures, self._gone = last_closures, frozenset(gone + touching)
            if last_relevant is not None:
                gone_functions = [fn for i in gone for fn in previous[i][1].functions]
                self._relevance_change = (last_relevant, gone_functions, added_functions)
            memo.clear()
            memo.update(current)
            memo[CLOSURES] = self._closures

    @functools.cached_property
    def roles(self) -> Roles:
        # Only the analysed file's program is asked: an imported module's summary never is.
        return Roles(self.module_code, self.functions, import_aliases(self.blocks))

    @property
    def imports_key(self) -> tuple:
        return tuple(summary.key for summary in self.imported)

    def dependencies(self, *blocks: Block) -> frozenset[int]:
        """Keys of every definition block reachable by name from `blocks` (and theirs)."""
        memo = tuple(id(b) for b in blocks)
        found = self._closures.get(memo)
        if found is None:
            # Last run's closure from the same blocks, when no block it reached is gone
            # (edited, removed): the names it met still have the same definers.
            found = self._last_closures.get(memo)
            if found is None or not found[1].isdisjoint(self._gone):
                found = self._closure(blocks)
            self._closures[memo] = found
        return found[0]

    def _closure(self, blocks: tuple[Block, ...]) -> tuple[frozenset, frozenset]:
        """(the keys of the blocks reachable from `blocks`, their ids)."""
        seen = {id(b): b for b in blocks}
        todo = list(blocks)
        defined = self.definers.keys()
        while todo:
            current = todo.pop()
            for name in current.names & defined:
                for definer in self.definers[name]:
                    if id(definer) not in seen:
                        seen[id(definer)] = definer
                        todo.append(definer)
        return frozenset(b.key for b in seen.values()), frozenset(seen)

    def relevant_functions(self) -> list[FunctionRef]:
        """Functions that call backward, and (three levels of) functions that call them."""
        names = frozenset(fn.node.name for fn in self.functions)
        found = self._relevant_as_before(names)
        if found is None:
            found = self._relevant_functions()
        if self._memo is not None:
            self._memo[RELEVANT] = (frozenset(id(fn) for fn in found), names)
        return found

    def _relevant_as_before(self, names: frozenset[str]) -> list[FunctionRef] | None:
        """Last run's answer, when the functions new to this run are, as a multiset, the
        ones gone in what decides it (name, own text relevant, the function names their
        text mentions): the same question then, each new one answered as its gone twin."""
        if self._relevance_change is None:
            return None
        (last_ids, last_names), gone, added = self._relevance_change
        if names != last_names or len(gone) != len(added):
            return None

        def signature(fn: FunctionRef) -> tuple:
            relevant, mentioned = _text_facts(fn)
            return fn.node.name, relevant, mentioned & names

        answers = {signature(fn): id(fn) in last_ids for fn in gone}
        added_answers = {}
        for fn in added:
            answer = answers.get(signature(fn))
            if answer is None:
                return None
            added_answers[id(fn)] = answer
        if Counter(map(signature, gone)) != Counter(map(signature, added)):
            return None
        return [fn for fn in self.functions if added_answers.get(id(fn), id(fn) in last_ids)]

    def _relevant_functions(self) -> list[FunctionRef]:
        names_of = {id(fn): function_names(fn) for fn in self.functions}
        relevant = {id(fn) for fn in self.functions if function_is_relevant(fn)}
        names = {fn.node.name for fn in self.functions if id(fn) in relevant}
        for _ in range(3):
            grew = False
            for fn in self.functions:
                if id(fn) not in relevant and not names.isdisjoint(names_of[id(fn)]):
                    relevant.add(id(fn))
                    names.add(fn.node.name)
                    grew = True
            if not grew:
                break
        return [fn for fn in self.functions if id(fn) in relevant]


def bind_import(statement, site: Site, resolver, path: str, imported: list, definitions: dict):
    """`from .models import Net` / `import models`: definitions of the project's files (into
    `definitions`), and the summaries the import reached (appended to `imported`)."""
    if isinstance(statement, ast.ImportFrom):
        summary = resolver(statement.module or "", statement.level, path)
        if summary is None:
            return
        imported.append(summary)
        for alias in statement.names:
            found = summary.lookup(alias.name)
            if found is None:  # `from pkg import submodule`
                prefix = f"{statement.module}." if statement.module else ""
                sub = resolver(prefix + alias.name, statement.level, path)
                if sub is not None:
                    imported.append(sub)
                    found = Binding(Val(frozenset(), NAMESPACE, sub), site)
            if found is not None:
                definitions[alias.asname or alias.name] = found
        return
    for alias in statement.names:
        summary = resolver(alias.name, 0, path)
        if summary is None:
            continue
        imported.append(summary)
        if alias.asname:
            definitions[alias.asname] = Binding(Val(frozenset(), NAMESPACE, summary), site)
        elif "." not in alias.name:
            definitions[alias.name] = Binding(Val(frozenset(), NAMESPACE, summary), site)


def imports_key(blocks: list[Block], path: str = "", resolver=None) -> tuple:
    """`Program(blocks, path, resolver).imports_key` without the rest of the program: the
    module-level imports of the blocks that parse, resolved in the same order (what a
    keystroke in a block that stays broken asks, before anything else is worth building)."""
    if resolver is None:
        return ()
    imported: list = []
    for block in blocks:
        if block.error is not None:
            continue
        for statement in block.statements:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                bind_import(statement, Site(block, statement), resolver, path, imported, {})
    return tuple(summary.key for summary in imported)


def _definer_names(parts: BlockDefinitions) -> set[str]:
    """The names a block is a definer of (see Program.definers)."""
    names = set(parts.defines)
    for _, binding in parts.bindings:
        if binding is not None and binding.val.kind == CLASS:
            methods = binding.val.ref.methods
            names.update(m for m in methods if may_be_run_by_name(m) and m not in parts.defines)
    return names


class BlockDefinitions(NamedTuple):
    defines: list[str]  # names it defines, when it holds a definition (else empty)
    # (name, binding) of its classes and functions in statement order; (statement, None)
    # for an import, which is resolved on every run.
    bindings: list[tuple]
    functions: list[FunctionRef]  # its functions and methods
    code: list[ast.stmt]  # its statements that are not definitions


def _definitions_of(block: Block) -> BlockDefinitions:
    # Not kept in block.memo: these objects point back at the block (a cycle).
    defines = []
    if any(isinstance(st, DEFINITIONS) for st in block.statements):
        # Only definitions: module statements are all in every root's key already.
        defines = block.defines()
    bindings, functions, code = [], [], []
    for statement in block.statements:
        site = Site(block, statement)
        if isinstance(statement, ast.ClassDef):
            info = make_class_info(statement, block)
            bindings.append((statement.name, Binding(Val(frozenset(), CLASS, info), site)))
            functions.extend(info.methods.values())
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = FunctionRef(statement, block)
            bindings.append((statement.name, Binding(Val(frozenset(), FUNC, fn), site)))
            functions.append(fn)
        else:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                bindings.append((statement, None))
            code.append(statement)
    return BlockDefinitions(defines, bindings, functions, code)


def parameter_names(node) -> set[str]:
    arguments = node.args
    names = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    names += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in names}


def function_text(fn: FunctionRef) -> str:
    block = fn.block
    first = fn.node.lineno - block.parsed_start
    last = (fn.node.end_lineno or fn.node.lineno) - block.parsed_start + 1
    return "\n".join(block.lines[first:last])


def _text_facts(fn: FunctionRef) -> tuple[bool, frozenset]:
    # Blocks outlive edits elsewhere: keep what their functions' text says on the block.
    key = ("text facts", fn.node.lineno)
    found = fn.block.memo.get(key)
    if found is None:
        text = function_text(fn)
        found = (is_relevant(text), frozenset(IDENTIFIER.findall(text)))
        fn.block.memo[key] = found
    return found


def function_is_relevant(fn: FunctionRef) -> bool:
    return _text_facts(fn)[0]


def function_names(fn: FunctionRef) -> frozenset:
    return _text_facts(fn)[1]

"""Pattern checkers that run beside the graph engine: AG005, AG006, AG007.

`run_checks(blocks)` takes the engine's blocks and returns findings in file coordinates.
Each checker walks one scope (a function body, or the module's own code) once; a scope
whose text cannot hold a checker's pattern is never walked by it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from .. import roles
from ..blocks import IDENTIFIER, Block
from ..model import Finding, Position, Span
from . import constructors, data_attr, inplace, zero_grad, zero_grad_facts
from .scopes import Scope, function_scopes

CHECKERS = (zero_grad, data_attr, inplace)
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _wanted(text: str) -> bool:
    return any(checker.wanted(text) for checker in CHECKERS)


def run_checks(blocks: list[Block], path: str = "", cache: dict | None = None) -> list[Finding]:
    """AG005/AG006/AG007 findings for the blocks of one file (broken blocks are skipped).

    With `cache` (a dict the caller keeps between runs, see `AnalysisCache`), a scope whose
    text and file facts are unchanged reuses its findings, moved with its block.
    """
    per_block = _PerBlock(cache)
    scopes = per_block.scopes(blocks)
    previous = cache.pop("scopes", {}) if cache is not None else {}
    current: dict = {}
    if cache is not None:
        cache["scopes"] = current
    if not scopes:
        return []
    findings: list[Finding] = []
    facts = optimizers = None
    for scope in scopes:
        text = scope.text
        if facts is None and zero_grad.wanted(text):
            facts = per_block.facts(blocks)
        if optimizers is None and inplace.wanted(text):
            optimizers = per_block.optimizers(blocks)
        first = scope.items[0][0] if scope.items else None
        key = (
            scope.kind,
            text,
            first.key if first is not None else None,
            # Module code spans many blocks, each free to move: recheck it when one does.
            tuple(b.start for b, _ in scope.items) if scope.kind == "module" else None,
            *_relevant(text, facts, optimizers),
            per_block.imports(blocks),
        )
        cached = previous.get(key)
        start = first.start if first is not None else 0
        if cached is None:
            found = _check_scope(scope, path, facts, optimizers, per_block.aliases)
        else:
            found = _moved(cached[0], start - cached[1])
        current[key] = (found, start)
        findings.extend(found)
    findings.sort(key=Finding.sort_key)
    return findings


class _PerBlock:
    """File-wide inputs of the checkers, assembled from per-block parts kept by block key."""

    def __init__(self, cache: dict | None):
        self.memo = cache.setdefault("blocks", {}) if cache is not None else {}
        self.used: dict = {}
        self.aliases: dict[str, str] | None = None  # the file's imports, read when needed
        self.alias_key: tuple = ()
        self.words: frozenset[str] = frozenset()
        if cache is not None:
            cache["blocks"] = self.used  # keep only what this run used

    def part(self, kind, block: Block, compute):
        # Scopes hold their block: identical blocks (same key) must not share them.
        key = (kind, block.key, id(block) if kind == "scopes" else None)
        found = self.used.get(key)  # asked twice in one run (facts and optimizers)
        if found is None:
            found = self.memo.get(key)
        if found is None:
            found = compute()
        self.used[key] = found
        return found

    def scopes(self, blocks: list[Block]) -> list[Scope]:
        module_items, module_texts, functions = [], [], []
        for block in blocks:
            if block.error is not None or not block.statements:
                continue
            functions.extend(
                self.part("scopes", block, lambda b=block: function_scopes(b, _wanted))
            )
            code = [st for st in block.statements if not isinstance(st, DEFINITIONS)]
            if code:
                module_items.extend((block, statement) for statement in code)
                module_texts.append(block.text)
        text = "\n".join(module_texts)
        if module_items and _wanted(text):
            functions.insert(0, Scope("module", module_items, text))
        return functions

    def imports(self, blocks: list[Block]) -> tuple:
        if self.aliases is None:
            self.aliases = roles.import_aliases(blocks)
            self.alias_key = tuple(sorted(self.aliases.items()))
            self.words = constructors.spellings(self.aliases)
        return self.alias_key

    def constructed(self, block: Block, blocks: list[Block]) -> list:
        """The optimizers and grad scalers the block builds (constructors.py). What a
        callee is depends on the file's imports: they are part of the key."""
        self.imports(blocks)
        return self.part(
            ("constructed", self.alias_key),
            block,
            lambda: constructors.block_constructed(block, self.aliases, self.words),
        )

    def facts(self, blocks: list[Block]) -> zero_grad_facts.FileFacts:
        parts = [
            self.part(
                ("facts", self.imports(blocks)),
                b,
                lambda b=b: zero_grad_facts.file_facts([b], self.constructed(b, blocks)),
            )
            for b in blocks
        ]
        return zero_grad_facts.FileFacts.merge(parts)

    def optimizers(self, blocks: list[Block]) -> dict:
        merged: dict[str, frozenset] = {}
        for block in blocks:
            for name, models in inplace.optimized_models(self.constructed(block, blocks)).items():
                merged[name] = merged.get(name, frozenset()) | models
        return merged


_NAMES: dict[str, frozenset] = {}  # scope text -> identifiers in it (scopes outlive edits)


def _relevant(text: str, facts, optimizers) -> tuple:
    """The part of the file-wide facts a scope can see: the names its text mentions.

    A half-typed line elsewhere in the file changes the facts for a moment; scopes that
    do not name what changed keep their cached findings.
    """
    names = _NAMES.get(text)
    if names is None:
        if len(_NAMES) > 20_000:
            _NAMES.clear()
        names = _NAMES[text] = frozenset(IDENTIFIER.findall(text))
    seen_facts = None
    if facts is not None:
        seen_facts = (facts.optimizers & names, facts.clearing_key(names))
    seen_optimizers = None
    if optimizers:
        seen_optimizers = tuple(
            sorted((k, v) for k, v in optimizers.items() if k in names or v & names)
        )
    return seen_facts, seen_optimizers


LINE_REFERENCE = re.compile(r"\b(line )(\d+)")


def _moved(findings: list[Finding], delta: int) -> list[Finding]:
    """A function's findings after its block moved by `delta` lines (spans and messages)."""
    if not delta:
        return findings

    def text(message: str) -> str:
        # The lines a function scope's messages name lie inside that function.
        return LINE_REFERENCE.sub(lambda m: f"{m[1]}{int(m[2]) + delta}", message)

    def span(value: Span) -> Span:
        return Span(
            Position(value.start.line + delta, value.start.column),
            Position(value.end.line + delta, value.end.column),
        )

    return [
        replace(
            f,
            span=span(f.span),
            message=text(f.message),
            evidence=tuple(
                replace(s, span=span(s.span), message=text(s.message)) for s in f.evidence
            ),
        )
        for f in findings
    ]


def _check_scope(scope, path: str, facts, optimizers, aliases) -> list[Finding]:
    text = scope.text
    found: list[Finding] = []
    try:
        if zero_grad.wanted(text):
            found.extend(zero_grad.check(scope, facts, path, aliases))
        if data_attr.wanted(text):
            found.extend(data_attr.check(scope, path, aliases))
        if inplace.wanted(text):
            found.extend(inplace.check(scope, path, optimizers, aliases))
    except RecursionError:
        # An expression nested thousands deep: give up on this scope, not the file.
        return []
    return found


__all__ = ["run_checks"]

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
    return any(_wants(text))


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
    wants = [_wants(scope.text) for scope in scopes]
    facts = per_block.facts(blocks) if any(w[0] for w in wants) else None
    optimizers = per_block.optimizers(blocks) if any(w[2] for w in wants) else None
    if any(w[1] for w in wants):
        per_block.imports(blocks)  # AG006 qualifies names through them (`Tensor(...)`)
    relevance = _Relevance(cache, facts, optimizers)
    findings: list[Finding] = []
    for scope, want in zip(scopes, wants, strict=True):
        zero, _data, inplace_wanted = want
        text = scope.text
        first = scope.items[0][0] if scope.items else None
        key = (
            scope.kind,
            text,
            first.key if first is not None else None,
            # Module code spans many blocks, each free to move: recheck it when one does.
            tuple(b.start for b, _ in scope.items) if scope.kind == "module" else None,
            relevance.of(text, zero, inplace_wanted),
            per_block.alias_token,
        )
        cached = previous.get(key)
        start = first.start if first is not None else 0
        if cached is None:
            found = _check_scope(scope, want, path, facts, optimizers, per_block.aliases)
        else:
            found = _moved(cached[0], start - cached[1])
        current[key] = (found, start)
        findings.extend(found)
    findings.sort(key=Finding.sort_key)
    return findings


class _Parts:
    """What the checkers take from one block, computed when first asked for. `facts`,
    `constructed` and `optimized` depend on the file's imports as well as the block."""

    __slots__ = ("block", "scopes", "code", "facts", "constructed", "optimized")

    def __init__(self, block: Block):
        self.block = block
        self.scopes = self.facts = self.constructed = self.optimized = None
        self.code: list = []  # its statements that are module code (not definitions)


class _PerBlock:
    """File-wide inputs of the checkers, assembled from per-block parts.

    The parts are kept by block object (the blocks an edit did not touch are the same
    objects from run to run: one dict lookup each), and the import-dependent ones also
    by block text for a block re-made with the same text (typing into a block and back,
    an undo). Those are dropped when the file's imports change, which the alias token
    (part of every scope's key) counts, and the by-text ones are bounded: each run keeps
    its own blocks' and as many older ones as the file has blocks, newest first, so a
    long typing session does not keep one entry per keystroke."""

    def __init__(self, cache: dict | None):
        self.cache = cache if cache is not None else {}
        self.previous: dict[int, _Parts] = self.cache.get("parts", {})
        self.earlier_by_text: dict[int, _Parts] = self.cache.get("parts by text", {})
        self.by_text: dict[int, _Parts] = {}  # this run's, then the newest earlier ones
        self.parts: dict[int, _Parts] = {}
        self.cache["parts"] = self.parts  # keep only what this run used
        self.aliases: dict[str, str] | None = None  # the file's imports, read when needed
        self.alias_token = self.cache.get("alias token", (None, 0))[1]
        self.words: frozenset[str] = frozenset()
        self.imported: list[_Parts] | None = None  # every block's, once per run
        self.listed: list[_Parts] = []  # every block's parts, in order (see scopes)

    def of(self, block: Block) -> _Parts:
        found = self.previous.get(id(block))
        if found is None or found.block is not block:
            found = _Parts(block)
        self.parts[id(block)] = found
        return found

    def scopes(self, blocks: list[Block]) -> list[Scope]:
        """Called first in a run: it looks up every block's parts."""
        module_items, module_texts, functions = [], [], []
        self.listed = [self.of(block) for block in blocks]
        for parts in self.listed:
            block = parts.block
            if block.error is not None or not block.statements:
                continue
            if parts.scopes is None:
                parts.scopes = function_scopes(block, _wanted)
                parts.code = [st for st in block.statements if not isinstance(st, DEFINITIONS)]
            functions.extend(parts.scopes)
            if parts.code:
                module_items.extend((block, statement) for statement in parts.code)
                module_texts.append(block.text)
        text = "\n".join(module_texts)
        if module_items and _wanted(text):
            functions.insert(0, Scope("module", module_items, text))
        return functions

    def imports(self, blocks: list[Block]) -> None:
        if self.aliases is not None:
            return
        self.aliases = roles.import_aliases(blocks)
        self.words = constructors.spellings(self.aliases)
        alias_key = tuple(sorted(self.aliases.items()))
        last_key, token = self.cache.get("alias token", (None, 0))
        if alias_key != last_key:
            # Other imports: what a callee is changes, so does every import-dependent part.
            token += 1
            self.cache["alias token"] = (alias_key, token)
            for parts in (*self.previous.values(), *self.parts.values()):
                parts.facts = parts.constructed = parts.optimized = None
            self.earlier_by_text = {}
        self.alias_token = token

    def _imported(self, blocks: list[Block]) -> list[_Parts]:
        """Every block's parts with what it constructs; the import-dependent parts of a
        block of the same text are taken when this object has none yet."""
        if self.imported is not None:
            return self.imported
        self.imports(blocks)
        self.imported = []
        for parts in self.listed:
            block = parts.block
            if parts.constructed is None:
                same = self.by_text.get(block.key) or self.earlier_by_text.get(block.key)
                if same is not None and same.block.text == block.text:
                    parts.facts, parts.constructed = same.facts, same.constructed
                    parts.optimized = same.optimized
                else:
                    parts.constructed = constructors.block_constructed(
                        block, self.aliases, self.words
                    )
            self.by_text[block.key] = parts
            self.imported.append(parts)
        bound = 2 * len(self.listed) + 16
        for key, parts in self.earlier_by_text.items():
            if len(self.by_text) >= bound:
                break
            self.by_text.setdefault(key, parts)
        self.cache["parts by text"] = self.by_text
        return self.imported

    def facts(self, blocks: list[Block]) -> zero_grad_facts.FileFacts:
        found = []
        for parts in self._imported(blocks):
            if parts.facts is None:
                parts.facts = zero_grad_facts.file_facts([parts.block], parts.constructed)
            found.append(parts.facts)
        return zero_grad_facts.FileFacts.merge(found)

    def optimizers(self, blocks: list[Block]) -> dict:
        merged: dict[str, frozenset] = {}
        for parts in self._imported(blocks):
            if parts.optimized is None:
                parts.optimized = inplace.optimized_models(parts.constructed)
            for name, models in parts.optimized.items():
                merged[name] = merged.get(name, frozenset()) | models
        return merged


# Memos by scope text, shared by every document: an edited scope leaves its old text
# behind, so each is emptied when it passes this many texts (a few MB of scope text).
_TEXT_MEMO_BOUND = 4096
_WANTS: dict[str, tuple[bool, bool, bool]] = {}  # scope text -> which checkers want it


def _wants(text: str) -> tuple[bool, bool, bool]:
    found = _WANTS.get(text)
    if found is None:
        if len(_WANTS) > _TEXT_MEMO_BOUND:
            _WANTS.clear()
        found = _WANTS[text] = tuple(checker.wanted(text) for checker in CHECKERS)
    return found


_NAMES: dict[str, frozenset] = {}  # scope text -> identifiers in it (scopes outlive edits)


def _names_of(text: str) -> frozenset[str]:
    names = _NAMES.get(text)
    if names is None:
        if len(_NAMES) > _TEXT_MEMO_BOUND:
            _NAMES.clear()
        names = _NAMES[text] = frozenset(IDENTIFIER.findall(text))
    return names


class _Relevance:
    """The part of the file-wide facts a scope can see: what they say of the names its
    text mentions (AG005 reads the facts, AG007 the optimizers' models).

    A half-typed line elsewhere in the file changes the facts for a moment; scopes that
    do not name what changed keep their cached findings. Each run also keeps every
    scope's answer and the facts it came from: the next run finds which names the facts
    say something new about, and a scope that names none of them takes its last answer
    instead of reading the facts again (an edit inside one function changes the facts of
    that function's names only)."""

    def __init__(self, cache: dict | None, facts, optimizers):
        self.facts, self.optimizers = facts, optimizers
        last = cache.get("relevance") if cache is not None else None
        digest = _digest(facts, optimizers)
        self.answers: dict = {}
        self.last_answers: dict = {}
        self.changed: frozenset[str] | None = None  # None: every name
        if last is not None:
            last_digest, self.last_answers = last
            self.changed = _changed_names(last_digest, digest)
        if cache is not None:
            cache["relevance"] = (digest, self.answers)

    def of(self, text: str, zero: bool, inplace_wanted: bool) -> tuple:
        query = (text, zero, inplace_wanted)
        found = self.answers.get(query)
        if found is not None:
            return found
        names = _names_of(text)
        found = self.last_answers.get(query)
        if found is None or self.changed is None or not names.isdisjoint(self.changed):
            found = self._compute(names, zero, inplace_wanted)
        self.answers[query] = found
        return found

    def _compute(self, names: frozenset[str], zero: bool, inplace_wanted: bool) -> tuple:
        facts, optimizers = self.facts, self.optimizers
        seen_facts = None
        if zero and facts is not None:
            seen_facts = (
                facts.optimizers & names,
                facts.scalers & names,
                facts.clearing_key(names),
            )
        seen_optimizers = None
        if inplace_wanted and optimizers:
            seen_optimizers = tuple(
                sorted((k, v) for k, v in optimizers.items() if k in names or v & names)
            )
        return seen_facts, seen_optimizers


def _digest(facts, optimizers) -> tuple:
    """What the scopes' answers are made of, by name: (optimizers, scalers, defined
    functions, candidate clearing functions -> their blocks, optimizer -> its models)."""
    if facts is None:
        fact_parts = (frozenset(), frozenset(), frozenset(), {})
    else:
        candidates = {
            name: tuple(key for key, _ in found) for name, found in facts.candidates.items()
        }
        fact_parts = (facts.optimizers, facts.scalers, facts.defined, candidates)
    return (facts is None, optimizers is None, *fact_parts, dict(optimizers or {}))


def _changed_names(last: tuple, now: tuple) -> frozenset[str] | None:
    """The names about which `now` says something else than `last`; None (every name)
    when the facts or the optimizers were not gathered in one of the two runs."""
    if last[:2] != now[:2]:
        return None
    changed: set[str] = set()
    for before, after in zip(last[2:5], now[2:5], strict=True):
        if before is not after:
            changed |= before ^ after
    for before, after in ((last[5], now[5]), (last[6], now[6])):
        for name in before.keys() | after.keys():
            old, new = before.get(name), after.get(name)
            if old != new:
                changed.add(name)
                if isinstance(old, frozenset):  # an optimizer's models: their names too
                    changed |= old
                if isinstance(new, frozenset):
                    changed |= new
    return frozenset(changed)


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


def _check_scope(scope, wants, path: str, facts, optimizers, aliases) -> list[Finding]:
    """The findings of the checkers that want the scope (`wants`: `_wants(scope.text)`)."""
    zero, data, inplace_wanted = wants
    found: list[Finding] = []
    try:
        if zero:
            found.extend(zero_grad.check(scope, facts, path, aliases))
        if data:
            found.extend(data_attr.check(scope, path, aliases))
        if inplace_wanted:
            found.extend(inplace.check(scope, path, optimizers, aliases))
    except RecursionError:
        # An expression nested thousands deep: give up on this scope, not the file.
        return []
    return found


__all__ = ["run_checks"]

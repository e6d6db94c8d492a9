"""`analyze(source, path)`: blocks, analysis roots, cached results, rendered findings.

Roots are the module's own code (definitions pre-bound, then the other top-level
statements in order) and every function or method that calls backward, directly or
through the file's functions. Each root is analysed on its own; a root's result is
cached under the content of every block it can reach by name, so an edit re-analyses
only the roots that can see the edited block.
"""

from __future__ import annotations

import ast
import logging

from .blocks import Block, blocks_from_pieces, build_blocks, split_lines
from .checks import run_checks
from .interp import FunctionRef, Interpreter, make_class_info
from .model import Finding, Severity, Span, Step
from .report import RawFinding, Reporter
from .values import CLASS, FUNC, Binding, Site, Val

log = logging.getLogger("autograd_lint.analysis")

BACKWARD_MARKERS = ("backward", "autograd")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def is_relevant(text: str) -> bool:
    return any(marker in text for marker in BACKWARD_MARKERS)


class AnalysisCache:
    """Per-document state that makes re-analysis incremental. Not thread-safe."""

    def __init__(self):
        self.path: str | None = None
        self.lines: list[str] | None = None
        self.blocks: list[Block] = []
        self.results: dict[tuple, object] = {}
        self.stats = {"blocks_parsed": 0, "roots_run": 0, "roots_reused": 0}

    def update_blocks(self, source: str, lines: list[str], path: str) -> list[Block]:
        old = self.lines
        if old is None or path != self.path:
            blocks = build_blocks(source, lines, path)
            self.stats["blocks_parsed"] += len(blocks)
        else:
            blocks = self._patch(old, lines, path)
        self.path, self.lines, self.blocks = path, lines, blocks
        return blocks

    def _patch(self, old: list[str], new: list[str], path: str) -> list[Block]:
        shortest = min(len(old), len(new))
        prefix = 0
        while prefix < shortest and old[prefix] == new[prefix]:
            prefix += 1
        if prefix == len(old) == len(new):
            return self.blocks
        suffix = 0
        while suffix < shortest - prefix and old[-1 - suffix] == new[-1 - suffix]:
            suffix += 1
        first_unchanged_old = len(old) - suffix
        delta = len(new) - len(old)
        before = [b for b in self.blocks if b.end <= prefix]
        if before:
            # An indented line typed below a block may belong to it: parse them together.
            before.pop()
        after = [b for b in self.blocks if b.start - 1 >= first_unchanged_old]
        begin = before[-1].end if before else 0
        end = after[0].start - 1 + delta if after else len(new)
        middle = blocks_from_pieces(new, begin, end, path)
        self.stats["blocks_parsed"] += len(middle)
        # Keep the old object for a block whose text did not change: cached results point
        # at it, and must move with it.
        kept = {id(b) for b in before} | {id(b) for b in after}
        reusable: dict[int, list[Block]] = {}
        for block in self.blocks:
            if id(block) not in kept and block.error is None:
                reusable.setdefault(block.key, []).append(block)
        for index, block in enumerate(middle):
            same = reusable.get(block.key)
            if same and block.error is None:
                old_block = same.pop(0)
                old_block.start = block.start
                middle[index] = old_block
        for block in after:
            block.start += delta
        return [*before, *middle, *after]


def analyze(source: str, path: str = "<string>", *, cache: AnalysisCache | None = None):
    """Findings for one file's text, sorted; never raises on any input text."""
    if "\x00" in source:
        source = source.replace("\x00", " ")
    lines = split_lines(source)
    if cache is not None:
        blocks = cache.update_blocks(source, lines, path)
    else:
        blocks = build_blocks(source, lines, path)
    findings = [syntax_finding(block, path) for block in blocks if block.error is not None]
    if is_relevant(source):
        for raw in analyze_blocks(blocks, cache):
            findings.append(render(raw, path))
    try:
        findings.extend(run_checks(blocks, path))
    except Exception:  # noqa: BLE001 - a checker's bug costs its findings, nothing more
        log.exception("autograd-lint: internal error in AG005-AG007 checks")
    findings.sort(key=Finding.sort_key)
    return findings


def _rules() -> dict:
    # Imported late: the rule registry imports the analysis package for its model.
    from ..rules import RULES

    return RULES


def syntax_finding(block: Block, path: str) -> Finding:
    rule = _rules()["AG000"]
    message = f"syntax error: {block.error.msg}" if block.error.msg else "syntax error"
    return Finding("AG000", rule.severity, message, block.error_span(), path=path, kind="syntax")


# -- roots -------------------------------------------------------------------------------------
class Program:
    """What the file defines at the top level, with dependencies by name."""

    def __init__(self, blocks: list[Block]):
        self.blocks = [b for b in blocks if b.error is None]
        self.classes = {}
        self.definitions: dict[str, Binding] = {}
        self.definers: dict[str, list[Block]] = {}
        self.module_code: list[tuple[Block, list]] = []
        self.functions: list[FunctionRef] = []
        for block in self.blocks:
            for name in block.defines():
                self.definers.setdefault(name, []).append(block)
            code = []
            for statement in block.statements:
                site = Site(block, statement)
                if isinstance(statement, ast.ClassDef):
                    info = make_class_info(statement, block, self.classes)
                    self.classes[statement.name] = info
                    self.definitions[statement.name] = Binding(Val(frozenset(), CLASS, info), site)
                    self.functions.extend(info.methods.values())
                elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    fn = FunctionRef(statement, block)
                    self.definitions[statement.name] = Binding(Val(frozenset(), FUNC, fn), site)
                    self.functions.append(fn)
                else:
                    code.append(statement)
            if code:
                self.module_code.append((block, code))
        self._closures: dict[int, frozenset] = {}

    def dependencies(self, block: Block) -> frozenset[int]:
        """Keys of every block reachable by name from `block` (itself included)."""
        found = self._closures.get(id(block))
        if found is not None:
            return found
        seen = {id(block): block}
        todo = [block]
        while todo:
            current = todo.pop()
            for name in current.names:
                for definer in self.definers.get(name, ()):
                    if id(definer) not in seen:
                        seen[id(definer)] = definer
                        todo.append(definer)
        found = frozenset(b.key for b in seen.values())
        self._closures[id(block)] = found
        return found

    def relevant_functions(self) -> list[FunctionRef]:
        texts = {id(fn): function_text(fn) for fn in self.functions}
        relevant = {id(fn) for fn in self.functions if is_relevant(texts[id(fn)])}
        names = {fn.node.name for fn in self.functions if id(fn) in relevant}
        for _ in range(3):  # callers of callers of functions that call backward
            grew = False
            for fn in self.functions:
                if id(fn) not in relevant and any(n in texts[id(fn)] for n in names):
                    relevant.add(id(fn))
                    names.add(fn.node.name)
                    grew = True
            if not grew:
                break
        return [fn for fn in self.functions if id(fn) in relevant]


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


def analyze_blocks(blocks: list[Block], cache: AnalysisCache | None) -> list[RawFinding]:
    program = Program(blocks)
    previous = cache.results if cache is not None else {}
    current: dict = {}
    found: dict[tuple, RawFinding] = {}

    module_key = None
    if cache is not None:
        module_deps = frozenset().union(*(program.dependencies(b) for b, _ in program.module_code))
        module_key = ("module", tuple(b.key for b, _ in program.module_code), module_deps)
    cached = previous.get(module_key) if module_key is not None else None
    if cached is None:
        reporter = Reporter()
        interp = Interpreter(program.classes, reporter)
        try:
            globals_env = interp.run_module(program.module_code, program.definitions)
        except Exception:  # noqa: BLE001 - one root's failure must not cost the others
            log.exception("autograd-lint: internal error analysing module-level code")
            globals_env = {}
        raws = [*reporter.findings.values(), *interp.lifetimes.finish(interp, frozenset(), set())]
        cached = (raws, globals_env, interp.instances)
        _count(cache, "roots_run")
    else:
        _count(cache, "roots_reused")
    if module_key is not None:
        current[module_key] = cached
    module_findings, globals_env, instances = cached
    for raw in module_findings:
        found.setdefault(raw.key, raw)
    globals_env = {**globals_env, **program.definitions}

    for fn in program.relevant_functions():
        key = None
        if cache is not None:
            key = ("function", fn.block.key, fn.node.lineno - fn.block.parsed_start,
                   program.dependencies(fn.block), module_key)  # fmt: skip
        raws = previous.get(key) if key is not None else None
        if raws is None:
            reporter = Reporter()
            raws = []
            try:
                interp = Interpreter(program.classes, reporter, instances)
                interp.run_root_function(fn, globals_env)
                escaping = frozenset().union(*(v.origins for v in interp.frame.returns))
                raws = interp.lifetimes.finish(interp, escaping, parameter_names(fn.node))
            except Exception:  # noqa: BLE001
                log.exception("autograd-lint: internal error analysing %s()", fn.node.name)
            raws = [*reporter.findings.values(), *raws]
            _count(cache, "roots_run")
        else:
            _count(cache, "roots_reused")
        if key is not None:
            current[key] = raws
        for raw in raws:
            found.setdefault(raw.key, raw)
    if cache is not None:
        cache.results = current
    return list(found.values())


def _count(cache: AnalysisCache | None, stat: str) -> None:
    if cache is not None:
        cache.stats[stat] += 1


# -- rendering ---------------------------------------------------------------------------------
def span_of(site: Site) -> Span:
    return site.block.span_of(site.node)


def render(raw: RawFinding, path: str) -> Finding:
    rule = _rules().get(raw.code)
    severity = rule.severity if rule else Severity.ERROR
    lines = [span_of(site).start.line for site in raw.message_sites]
    try:
        message = raw.message.format(*lines)
    except (IndexError, KeyError, ValueError):
        message = raw.message
    steps = tuple(
        Step(span_of(step.site), step.message, step.role, step.name) for step in raw.steps
    )
    extra = {k: v for k, v in raw.extra.items() if not isinstance(v, Site)}
    for k, v in raw.extra.items():
        if isinstance(v, Site):
            extra[k] = span_of(v)
    return Finding(
        raw.code,
        severity,
        message,
        span_of(raw.site),
        steps,
        kind=raw.kind,
        path=path,
        loop=span_of(raw.loop) if raw.loop is not None else None,
        extra=extra,
    )

"""`analyze(source, path)`: blocks, analysis roots, cached results, rendered findings.

Roots are the module's own code (definitions pre-bound, then the other top-level
statements in order) and every function or method that calls backward, directly or
through the file's functions. Each root is analysed on its own; a root's result is
cached under the content of every block it can reach by name, so an edit re-analyses
only the roots that can see the edited block.
"""

from __future__ import annotations

import logging
import re
import sys
import weakref

from . import frameworks
from .blocks import (
    Block,
    ParseMemo,
    blocks_from_pieces,
    build_blocks,
    head_of,
    rebuild_blocks,
    split_lines,
)
from .checks import run_checks
from .constructor_runs import ConstructorRuns
from .guessed_parameters import rests_on_guess
from .interp import Interpreter
from .model import Finding, Role, Severity, Span, Step
from .nothing_to_check import parses_with_nothing_to_check
from .parameter_classes import ClassTable, classes_signature, parameter_class
from .program import Program, imports_key, is_relevant, parameter_names
from .report import NOT_ANALYSED, RawFinding, Reporter
from .values import EMPTY, Site

log = logging.getLogger("autograd_lint.analysis")


class AnalysisCache:
    """Per-document state that makes re-analysis incremental. Not thread-safe."""

    def __init__(self):
        self.path: str | None = None
        self.lines: list[str] | None = None
        self.blocks: list[Block] = []
        self.results: dict[tuple, object] = {}
        self.checks: dict = {}  # run_checks' per-scope results
        self.definitions: dict = {}  # Program's per-block definitions
        self.memo = ParseMemo()
        # The classes each root's parameters are taken for (parameter_classes.py), by the
        # root's tree, while the file's classes stay as they were: every keystroke matched
        # the calls on every parameter of every root against every module class again
        # (a third of a keystroke's CPU in a 5,000-line file).
        self.parameter_answers: tuple = (None, weakref.WeakKeyDictionary())
        self.stats = {"blocks_parsed": 0, "roots_run": 0, "roots_reused": 0, "analyses_reused": 0}
        # (its imports' key, the blocks that parsed with their lines, its findings)
        self.last_analysis: tuple | None = None

    @staticmethod
    def _analysed(blocks: list[Block]) -> tuple:
        return tuple((block, block.start) for block in blocks if block.error is None)

    def unchanged_findings(self, blocks: list[Block], imports) -> list[Finding] | None:
        """The last analysis's findings (AG000s aside) when the blocks that parse are the
        very objects it analysed, at the same lines, and the imports resolve the same:
        a keystroke in a block that stays broken changes nothing else to analyse.
        `imports()`: the imports' key (None for a file with nothing to interpret), asked
        only once the blocks are the same."""
        last = self.last_analysis
        if last is None or last[1] != self._analysed(blocks) or last[0] != imports():
            return None
        self.stats["analyses_reused"] += 1
        return last[2]

    def parameter_classes_memo(self, classes: dict) -> weakref.WeakKeyDictionary:
        """Root tree -> its parameters' classes, kept while `classes` say the same."""
        signature = classes_signature(classes)
        if self.parameter_answers[0] != signature:
            self.parameter_answers = (signature, weakref.WeakKeyDictionary())
        return self.parameter_answers[1]

    def keep_findings(self, blocks: list[Block], program, findings: list[Finding]) -> None:
        imports = program.imports_key if program is not None else None
        self.last_analysis = (imports, self._analysed(blocks), findings)

    def update_blocks(self, source: str, lines: list[str], path: str) -> list[Block]:
        old = self.lines
        if old is None or path != self.path:
            blocks = build_blocks(source, lines)
            self.stats["blocks_parsed"] += len(blocks)
        else:
            blocks = self._patch(old, lines)
            if any(block.error is not None for block in blocks):
                # Patching keeps the blocks around the edit as they were cut, which is
                # what a fresh analysis does only while the file parses.
                # A block patching re-cut (a piece that was broken alone) may parse in
                # the re-cut file with its old text: its old object is the one cached
                # results point at, so the blocks before the edit are offered too.
                patched = {id(b) for b in blocks}
                offered = [*blocks, *(b for b in self.blocks if id(b) not in patched)]
                blocks = self._reuse(rebuild_blocks(lines, blocks, self.memo), offered)
                self.memo.next_run()
        self.path, self.lines, self.blocks = path, lines, blocks
        return blocks

    def _reuse(self, fresh: list[Block], patched: list[Block]) -> list[Block]:
        """`fresh`, with each block whose text is unchanged replaced by its old object."""
        reusable: dict[int, list[Block]] = {}
        for block in patched:
            if block.error is None:
                reusable.setdefault(block.key, []).append(block)
        for index, block in enumerate(fresh):
            same = reusable.get(block.key)
            if same and block.error is None and same[0].lines == block.lines:
                old_block = same.pop(0)
                old_block.start = block.start
                fresh[index] = old_block
        return fresh

    def _patch(self, old: list[str], new: list[str]) -> list[Block]:
        shortest = min(len(old), len(new))
        prefix = _common_prefix(old, new, shortest)
        if prefix == len(old) == len(new):
            return self.blocks
        suffix = _common_suffix(old, new, shortest - prefix)
        first_unchanged_old = len(old) - suffix
        delta = len(new) - len(old)
        before = [b for b in self.blocks if b.end <= prefix]
        following = self.blocks[len(before)] if len(before) < len(self.blocks) else None
        if before and (following is None or following.start - 1 >= prefix):
            # An indented line typed below a block may belong to it: parse them together.
            # A change below the first line of the next block is that block's own.
            before.pop()
        after = [b for b in self.blocks if b.start - 1 >= first_unchanged_old]
        begin = before[-1].end if before else 0
        end = after[0].start - 1 + delta if after else len(new)
        middle = blocks_from_pieces(new, begin, end)
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


def _common_prefix(old: list[str], new: list[str], limit: int) -> int:
    """How many first lines (at most `limit`) the two lists share. Halving slices that are
    compared in C: the lines an edit did not touch are the same objects, so it is a
    pointer check per line, where a Python loop over a 5,000-line file took 1.5 ms of every
    keystroke."""
    low, high = 0, limit  # old[:low] == new[:low]; they differ before `high + 1`
    while low < high:
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(old: list[str], new: list[str], limit: int) -> int:
    """How many last lines (at most `limit`) the two lists share (see _common_prefix)."""
    low, high = 0, limit
    old_end, new_end = len(old), len(new)
    while low < high:
        middle = (low + high + 1) // 2
        if old[old_end - middle : old_end - low] == new[new_end - middle : new_end - low]:
            low = middle
        else:
            high = middle - 1
    return low


# The interpreter recurses along the syntax tree: a few frames per level of a `.exp()`
# chain or of nested calls. From Python 3.11 on, calls between Python functions take no C
# stack, so a higher limit only lets valid deep code (a 900-long chain) be analysed; before
# that it could overflow the C stack, and code too deep for the default limit is reported
# as not analysed instead (see Interpreter.exec_block).
DEEP_CODE_RECURSION_LIMIT = 20_000
# Lines of one file analysed at most. The analysis of module-level code grows faster than
# the file (a 50 MB file took minutes and gigabytes): past this, the file is cut before a
# top-level statement and an AG000 notice says where the analysis stopped.
MAX_ANALYSED_LINES = 60_000


def _allow_deep_code() -> None:
    if sys.version_info >= (3, 11) and sys.getrecursionlimit() < DEEP_CODE_RECURSION_LIMIT:
        sys.setrecursionlimit(DEEP_CODE_RECURSION_LIMIT)


def analyze(
    source: str,
    path: str = "<string>",
    *,
    cache: AnalysisCache | None = None,
    resolver=None,
):
    """Findings for one file's text, sorted; never raises on any input text.

    `resolver(module, level, importing_path)` returns a `ModuleSummary` for an import of
    the project (see `modules.py`), or None; without one, imports are unknown names.
    """
    _allow_deep_code()
    if source.startswith("\ufeff"):
        # An editor's buffer may keep the file's byte-order mark, which Python drops when it
        # reads the file (the CLI decodes the same way). Columns on line 1 count without it.
        source = source[1:]
    if "\x00" in source:
        source = source.replace("\x00", " ")
    source, cut_off = head_of(source, MAX_ANALYSED_LINES)
    lines = split_lines(source)
    if cache is None and parses_with_nothing_to_check(source):  # no tree needed
        return [stopped_notice(len(lines) - 1, cut_off, path)] if cut_off else []
    if cache is not None:
        blocks = cache.update_blocks(source, lines, path)
    else:
        blocks = build_blocks(source, lines)
    findings = [syntax_finding(block, path) for block in blocks if block.error is not None]
    if cut_off:
        findings.append(stopped_notice(len(lines) - 1, cut_off, path))
    notices = len(findings)
    interpreted = is_relevant(source) or frameworks.may_be_driven(source)
    if cache is not None:
        # Before the program is built: a keystroke in a block that stays broken needs only
        # the imports' key to know that the last findings still hold.
        reused = cache.unchanged_findings(
            blocks, lambda: imports_key(blocks, path, resolver) if interpreted else None
        )
        if reused is not None:
            return sorted([*findings, *reused], key=Finding.sort_key)
    program = None
    if interpreted:
        program = Program(blocks, path, resolver, cache.definitions if cache else None)
    if program is not None:
        for raw in analyze_blocks(blocks, cache, program):
            if raw.site.block.path is None:  # a backward in another file is that file's
                findings.append(render(raw, path))
    try:
        checked = run_checks(blocks, path, cache.checks if cache is not None else None)
    except Exception:  # noqa: BLE001 - a checker's bug costs its findings, nothing more
        log.exception("autograd-lint: internal error in AG005-AG007 checks")
        checked = []
    # The interpreter's AG007 (a stepped weight, stepped.py) and the in-place checker's
    # can name the same `step()`: the checker's, with its tailored story, is kept.
    inplace = {f.span.start for f in checked if f.code == "AG007"}
    findings = [f for f in findings if f.code != "AG007" or f.span.start not in inplace]
    # When the graph a `retain_graph=True` kept will crash (AG007), the warning that it
    # slows every step (AG004 at that backward) understates it: the error tells the story.
    crashing = {s.span.start for f in findings if f.code == "AG007" for s in f.steps(Role.FAILS)}
    findings = [f for f in findings if f.code != "AG004" or f.span.start not in crashing]
    findings.extend(checked)
    if cache is not None:
        cache.keep_findings(blocks, program, findings[notices:])  # AG000s come first
    findings.sort(key=Finding.sort_key)
    return findings


def _severity(code: str, kind: str) -> Severity:
    # Imported late: the rule registry imports the analysis package for its model.
    from ..rules import severity_of

    return severity_of(code, kind)


LINE_REFERENCE = re.compile(r"\bon line (\d+)")


def syntax_finding(block: Block, path: str) -> Finding:
    # CPython numbers the lines of the text it was given ("after 'for' statement on line
    # 3"); a block is parsed alone, so its numbers are renumbered to the file's.
    text = LINE_REFERENCE.sub(
        lambda match: f"on line {int(match[1]) - block.parsed_start + block.start}",
        block.error.msg or "",
    )
    message = f"syntax error: {text}" if text else "syntax error"
    return Finding(
        "AG000", _severity("AG000", "syntax"), message, block.error_span(), path=path, kind="syntax"
    )


def stopped_notice(analysed: int, cut_off: int, path: str) -> Finding:
    message = (
        f"not analysed: analysis stopped at line {analysed:,}; the {cut_off:,} lines after it "
        f"are not checked (a file is analysed up to {MAX_ANALYSED_LINES:,} lines)"
    )
    where = Span.of(analysed + 1, 0, analysed + 1, 0)
    severity = _severity("AG000", NOT_ANALYSED)
    return Finding("AG000", severity, message, where, path=path, kind=NOT_ANALYSED)


def analyze_blocks(blocks: list[Block], cache: AnalysisCache | None, program: Program):
    previous = cache.results if cache is not None else {}
    current: dict = {}
    found: dict[tuple, RawFinding] = {}

    module_key = None
    if cache is not None:
        module_deps = program.dependencies(*(b for b, _ in program.module_code))
        module_key = (
            "module",
            tuple(b.key for b, _ in program.module_code),
            module_deps,
            program.imports_key,
        )
    cached = previous.get(module_key) if module_key is not None else None
    if cached is None:
        reporter = Reporter()
        interp = Interpreter(program.classes, reporter, None, program.roles)
        try:
            globals_env = interp.run_module(program.module_code, program.definitions)
        except Exception:  # noqa: BLE001 - one root's failure must not cost the others
            log.exception("autograd-lint: internal error analysing module-level code")
            globals_env = {}
        raws = [*reporter.findings.values(), *interp.lifetimes.finish(interp, frozenset(), set())]
        cached = (raws, globals_env, interp.instances, frozenset(interp.inlined_functions))
        _count(cache, "roots_run")
    else:
        _count(cache, "roots_reused")
    if module_key is not None:
        current[module_key] = cached
    module_findings, globals_env, instances, run_in_context = cached
    for raw in module_findings:
        found.setdefault(raw.key, raw)
    globals_env = {**globals_env, **program.definitions}

    constructors = ConstructorRuns()  # a class's `__init__`, run once for its method roots
    class_table = ClassTable(program.classes)  # for the roots' parameters
    answers = cache.parameter_classes_memo(program.classes) if cache is not None else None
    for fn in program.relevant_functions():
        if id(fn.node) in run_in_context:
            # The module's own code called it, with the values it really passes: alone, its
            # parameters would be guesses (a parameter named `policy` taken for a model
            # whose outputs share one graph), and what it finds in context is what counts.
            continue
        key = None
        if cache is not None:
            key = ("function", fn.block.key, fn.node.lineno - fn.block.parsed_start,
                   program.dependencies(fn.block), module_key,
                   _parameter_classes(fn, program, class_table, answers))  # fmt: skip

        def run(reporter, fn=fn):
            interp = Interpreter(program.classes, reporter, instances, program.roles)
            interp.class_table = class_table
            interp.run_root_function(fn, globals_env, constructors)
            escaping = frozenset().union(*(v.origins for v in interp.frame.returns))
            raws = interp.lifetimes.finish(interp, escaping, parameter_names(fn.node))
            interp.guessed.mark([*reporter.findings.values(), *raws])
            return raws

        raws = _run_root(cache, previous, current, key, run, f"{fn.node.name}()")
        for raw in raws:
            found.setdefault(raw.key, raw)
    for raws in _driver_roots(program, blocks, cache, previous, current, module_key, instances,
                              globals_env):  # fmt: skip
        for raw in raws:
            found.setdefault(raw.key, raw)
    if cache is not None:
        cache.results = current
    return list(found.values())


def _parameter_classes(fn, program: Program, class_table: ClassTable, answers) -> tuple:
    """The file's classes a root's parameters are taken for from their calls
    (parameter_classes.py), as the root's key needs them: the function's text need not name
    them, so they are not among its dependencies, and another class that also takes the
    calls, or an edit to the one that does, changes the root's findings. `answers`: the
    document's memo of which class blocks (AnalysisCache.parameter_classes_memo); the
    dependencies of each are worked out afresh, as other blocks may have changed."""
    taken = answers.get(fn.node)
    if taken is None:
        taken = answers[fn.node] = _classes_taken(fn, program, class_table)
    return tuple((name, block.key, program.dependencies(block)) for name, block in taken)


def _classes_taken(fn, program: Program, class_table: ClassTable) -> tuple:
    """(parameter, the block of the class it is taken for) of each parameter that has one.
    An annotated parameter's class and a method's own class (`self(x)`) are in the key
    already, as blocks its text names or as its own block: asking for them adds nothing."""
    arguments = fn.node.args
    found = []
    for param in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        info = parameter_class(fn.node, param, program.classes, class_table)
        if info is not None:
            found.append((param.arg, info.block))
    return tuple(found)


def _driver_roots(program, blocks, cache, previous, current, module_key, instances, globals_env):
    """Each class a framework drives (frameworks.py), run in the framework's loop."""
    if not program.classes or not frameworks.drives_some(blocks):
        return
    aliases = frameworks.import_aliases(blocks)
    for info in program.classes.values():
        driver = frameworks.driver_of(info, aliases)
        if driver is None:
            continue
        key = None
        if cache is not None:
            key = ("driver", info.block.key, program.dependencies(info.block), module_key,
                   tuple(sorted(aliases.items())), driver.framework, driver.key)  # fmt: skip

        def run(reporter, info=info, driver=driver):
            interp = Interpreter(program.classes, reporter, instances, program.roles)
            loop = driver.build()
            interp.run_driver(info, loop, globals_env)
            raws = interp.lifetimes.finish(interp, EMPTY, set())
            frameworks.explain_driver_steps([*reporter.findings.values(), *raws], loop, driver)
            return raws

        what = f"the {driver.framework} driver of {info.name}"
        raws = _run_root(cache, previous, current, key, run, what)
        yield raws


def _run_root(cache, previous: dict, current: dict, key, run, what: str) -> list[RawFinding]:
    """One analysis root's findings: reused from the last run when its key is unchanged,
    else `run(reporter)` (which returns the lifetime findings) plus what the reporter got."""
    raws = previous.get(key) if key is not None else None
    if raws is None:
        reporter = Reporter()
        raws = []
        try:
            raws = run(reporter)
        except Exception:  # noqa: BLE001 - one root's failure must not cost the others
            log.exception("autograd-lint: internal error analysing %s", what)
        raws = [*reporter.findings.values(), *raws]
        _count(cache, "roots_run")
    else:
        _count(cache, "roots_reused")
    if key is not None:
        current[key] = raws
    return raws


def _count(cache: AnalysisCache | None, stat: str) -> None:
    if cache is not None:
        cache.stats[stat] += 1


# -- rendering ---------------------------------------------------------------------------------
def span_of(site: Site) -> Span:
    return site.block.span_of(site.node)


def render(raw: RawFinding, path: str) -> Finding:
    # A cached raw finding renders the same until one of its blocks moves.
    where = (path, *(id(b) for b in raw.blocks), *(b.start for b in raw.blocks))
    if raw.rendered is not None and raw.rendered[0] == where:
        return raw.rendered[1]
    finding = _render(raw, path)
    raw.rendered = (where, finding)
    return finding


def _render(raw: RawFinding, path: str) -> Finding:
    severity = _severity(raw.code, raw.kind)
    if severity is Severity.ERROR and rests_on_guess(raw.extra):
        severity = Severity.WARNING  # its chain rests on a guess (guessed_parameters.py)
    lines = [
        f"{span_of(site).start.line} of {site.block.path.replace(chr(92), '/').rsplit('/', 1)[-1]}"
        if site.block.path
        else span_of(site).start.line
        for site in raw.message_sites
    ]
    try:
        message = raw.message.format(*lines)
    except (IndexError, KeyError, ValueError):
        message = raw.message
    steps = tuple(
        Step(span_of(step.site), step.message, step.role, step.name, step.site.block.path)
        for step in raw.steps
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

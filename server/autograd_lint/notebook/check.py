"""Checking a notebook file: read, analyse its program, fix, and give findings by cell."""

from __future__ import annotations

import dataclasses
import re
from collections import OrderedDict
from pathlib import Path

from ..analysis import AnalysisCache
from ..analysis.model import Finding
from ..checker import check_source, file_problem, read_python_file
from ..config import Settings
from .program import Program, build_program
from .reader import NotebookError, RawNotebook, parse_notebook
from .rerun import rerun_findings

_LINE_REF = re.compile(r"\bline (\d+)\b")
RERUN_CACHES = 6


def load(data: bytes) -> RawNotebook:
    try:
        text = data.decode("utf-8-sig")  # JSON is UTF-8; a BOM is tolerated
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    return parse_notebook(text)


def program_of(raw: RawNotebook) -> Program:
    """The Python code cells' program; a notebook of another language has no code cells."""
    python = raw.language in ("python", "python3", "ipython", "")
    return build_program((c.index, c.source) for c in raw.cells if c.kind == "code" and python)


def analyse(program: Program, path: str, settings: Settings, resolver=None, cache=None):
    """The program's findings in program coordinates: the analysis, a syntax error per
    cell that does not parse, and the cells that fail when run again."""

    # The repeated programs of re-run candidates, each with a cache kept beside the
    # notebook's own (an editor's keystroke re-analyses only what changed in them too);
    # a few only, the last used: each holds the syntax trees of most of the notebook.
    caches = getattr(cache, "notebook_reruns", None)
    if cache is not None and caches is None:
        caches = cache.notebook_reruns = OrderedDict()

    def analyzer(text: str, key=None) -> list[Finding]:
        rerun_cache = None
        if caches is not None and key is not None:
            rerun_cache = caches.pop(key, None) or AnalysisCache()
            caches[key] = rerun_cache
            while len(caches) > RERUN_CACHES:
                caches.popitem(last=False)
        return check_source(text, path, settings, cache=rerun_cache, resolver=resolver)

    found = check_source(program.text, path, settings, cache=cache, resolver=resolver)
    found += settings.apply(program.syntax_findings(path))
    found += settings.apply(rerun_findings(program, found, analyzer))
    return sorted(found, key=Finding.sort_key)


def localize(program: Program, finding: Finding, raw: RawNotebook | None = None) -> Finding:
    """The finding with cell-relative positions, and "line N" in its messages saying
    which cell when it is another than the finding's."""
    local = program.localize(finding)

    def refer(text: str, home: int | None) -> str:
        def one(match: re.Match) -> str:
            cell = program.cell_at(int(match.group(1)))
            if cell is None:
                return match.group(0)
            line = int(match.group(1)) - cell.first_line + 1
            return f"line {line}" if cell.number == home else f"cell {cell.number} line {line}"

        return _LINE_REF.sub(one, text)

    steps = tuple(
        s
        if s.path and s.path != finding.path
        else dataclasses.replace(s, message=refer(s.message, local.cell))
        for s in local.evidence
    )
    return dataclasses.replace(
        local,
        message=refer(local.message, local.cell),
        evidence=steps,
        # What the runtime check (program coordinates) and the file-line formats need.
        extra={**finding.extra, "program_finding": finding, "program": program, "notebook": raw},
    )


def check_notebook(
    path: Path,
    settings: Settings,
    *,
    resolver=None,
    fixes=None,
    root: Path | None = None,
) -> list[Finding]:
    """Findings of one notebook file, by cell; with a FixSession, fixed (or diffed) first."""
    data, problem = read_python_file(path, settings.max_file_size)
    if data is None:
        return settings.apply([file_problem(path, problem)])
    try:
        raw = load(data)
    except NotebookError as exc:
        return settings.apply([file_problem(path, f"not checked: {exc}")])
    program = program_of(raw)
    found = analyse(program, str(path), settings, resolver)
    if fixes is not None and found:
        found, program = _fix(path, raw, program, found, settings, resolver, fixes, root)
    return [localize(program, f, raw) for f in found]


def _fix(path, raw, program, found, settings, resolver, fixes, root):
    # Imported here: the fixes pull in libcst, which the language server loads only when a
    # fix is first asked for (its start-up stays fast).
    from ..fixes.engine import fix_all
    from .fix import notebook_fix

    def analyzer(text: str, name: str) -> list[Finding]:
        current = reprogram(program, text)
        return analyse(current, name, settings, resolver) if current else []

    made = {}

    def fixer(file: Path, findings, _analyzer, _limit):
        new_text, applied, remaining = fix_all(
            program.text, findings, path=str(file), analyzer=analyzer
        )
        made["fix"] = notebook_fix(file, raw, program, new_text, applied, remaining)
        made["text"] = new_text
        return made["fix"]

    remaining = fixes.file(path, found, analyzer, root=root, fixer=fixer)
    result = made.get("fix")
    if result is not None and remaining is result.remaining and result.changed:
        return remaining, reprogram(program, made["text"]) or program
    return remaining, program


def reprogram(program: Program, text: str) -> Program | None:
    """The program of a fixed text (cut at its markers), or None if it cannot be cut."""
    sources = program.split(text)
    if sources is None:
        return None
    return build_program((cell.index, sources[cell.index]) for cell in program.cells)

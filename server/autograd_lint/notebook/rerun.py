"""Re-run hazards: a cell that works the first time and fails when it is run again.

Jupyter users re-run a training cell all the time. A cell that reads a global it also
writes (`out, hidden = rnn(x, hidden)`) and calls backward starts its second run from the
state its first run left, and when that state still holds the first run's graph, the
second run's backward goes through a freed graph. The first run-through is fine, so the
ordinary analysis is silent: we analyse the notebook up to the cell, then the cell once
more, and report what fails only in the repeated copy.

Reported as AG001 (a graph carried from an earlier run: the re-run is the next iteration)
with kind "notebook-rerun", as a warning: running the notebook top to bottom works.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from functools import lru_cache

from ..analysis.model import Finding, Role, Span, Step
from ..rules import severity_of
from .program import MARKER, Cell, Program, _program_lines

RERUN_KIND = "notebook-rerun"
_FAILURES = frozenset({"AG001", "AG002", "AG007"})


def read_before_written(cell: Cell) -> list[str]:
    """Global names the cell reads before it assigns them (in the order first read)."""
    if cell.opaque or cell.error is not None or "backward" not in cell.source:
        return []
    return list(_read_before_written("\n".join(_program_lines(cell))))


@lru_cache(maxsize=4096)
def _read_before_written(text: str) -> tuple[str, ...]:
    """Cached by the cell's text: every keystroke asks again for every cell."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    walker = _FirstUse()
    walker.visit(tree)
    return tuple(name for name in walker.read_first if name in walker.written)


class _FirstUse(ast.NodeVisitor):
    """Module-level names in execution order: a value before its targets, the iterable
    before the loop variable; function and class bodies are another scope."""

    def __init__(self):
        self.seen: set[str] = set()
        self.read_first: list[str] = []
        self.written: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            if node.id not in self.seen:
                self.read_first.append(node.id)
        else:
            self.written.add(node.id)
        self.seen.add(node.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.visit_Name(ast.Name(node.target.id, ast.Load()))
        self.visit(node.target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self.visit(node.target)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        for child in node.body + node.orelse:
            self.visit(child)

    def visit_FunctionDef(self, node) -> None:
        self.written.add(node.name)
        self.seen.add(node.name)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node) -> None:
        return

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda


def rerun_findings(
    program: Program,
    findings: list[Finding],
    analyzer: Callable[..., list[Finding]],
) -> list[Finding]:
    """AG001 "notebook-rerun" findings, in program coordinates, for the cells that fail
    only when run a second time; `findings` are the program's own (one run of each cell).
    `analyzer(text, key)` analyses a text; `key` (the cell number) names an incremental
    cache for the repeated program of that cell, which mostly changes where one types."""
    lines = program.text.split("\n")
    out = []
    for cell in program.cells:
        names = read_before_written(cell)
        if not names:
            continue
        text, offset = rerun_text(program, cell, lines)
        copy_start = cell.first_line + offset
        known = {(f.code, f.span.start.line) for f in findings}
        done: set[int] = set()
        for found in analyzer(text, cell.number):
            line = found.span.start.line
            if found.code not in _FAILURES or line < copy_start:
                continue
            if (found.code, line - offset) in known or line - offset in done:
                continue
            done.add(line - offset)
            culprits = _culprits(text, found, names, copy_start, analyzer, cell.number)
            out.append(_as_rerun(found, cell, culprits, offset, copy_start))
    return out


def rerun_text(program: Program, cell: Cell, lines: list[str] | None = None):
    """(the program up to `cell` followed by `cell` once more, how many lines further
    down the copy's lines are than the cell's): the notebook as a user re-running it."""
    lines = program.text.split("\n") if lines is None else lines
    end = cell.first_line - 1 + cell.line_count  # lines[:end]: up to this cell
    text = "\n".join(lines[:end] + [MARKER.format(cell.number)] + _program_lines(cell))
    return text + "\n", end + 2 - cell.first_line


def _culprits(text, found, names, copy_start, analyzer, key) -> list[str]:
    """The names whose detaching at the top of the repeated cell makes its failure go:
    the state the message names, and what the fix detaches ([] when none does)."""

    def fixed_by(chosen: list[str]) -> bool:
        lines = text.split("\n")
        detach = [f"{name} = {name}.detach()" for name in chosen]
        # The inserted lines move the copy down: its failure would be that many lower.
        moved = found.span.start.line + len(detach)
        text_with = "\n".join(lines[: copy_start - 1] + detach + lines[copy_start - 1 :])
        again = analyzer(text_with, (key, *chosen))  # a cache of its own, as the copy's
        return not any(f.code == found.code and f.span.start.line == moved for f in again)

    for name in names:
        if fixed_by([name]):
            return [name]
    return list(names) if len(names) > 1 and fixed_by(list(names)) else []


def _shift(span: Span, offset: int) -> Span:
    return Span.of(
        span.start.line - offset, span.start.column, span.end.line - offset, span.end.column
    )


def _as_rerun(found: Finding, cell: Cell, names: list[str], offset: int, copy: int) -> Finding:
    carried = names or [s.name for s in found.evidence if s.name][:1] or ["its state"]
    quoted = ", ".join(f"`{name}`" for name in carried)
    first_line = cell.first_line
    steps: list[Step] = [
        Step(
            _first_read(cell, carried[0]) if names else Span.of(first_line, 0, first_line, 0),
            f"cell {cell.number} reads {quoted} that its previous run left with a graph",
            Role.CARRIED,
            name=carried[0],
        )
    ]
    for step in found.evidence:
        if step.path and step.path != found.path:
            steps.append(step)
        elif step.span.start.line >= copy:
            steps.append(dataclasses.replace(step, span=_shift(step.span, offset)))
        elif step.span.start.line >= first_line:
            steps.append(dataclasses.replace(step, message=f"previous run: {step.message}"))
        else:
            steps.append(step)
    message = (
        f"fails when cell {cell.number} is run again: it reads {quoted}, which its previous "
        "run left attached to a graph that run's backward freed; detach it at the top of "
        "the cell, or reset it in the cell"
    )
    return dataclasses.replace(
        found,
        code="AG001",
        severity=severity_of("AG001", RERUN_KIND),
        message=message,
        span=_shift(found.span, offset),
        evidence=tuple(steps),
        kind=RERUN_KIND,
        loop=None,
        extra={"rerun_cell": cell.number, "names": names, "cell_first_line": first_line},
    )


def _first_read(cell: Cell, name: str) -> Span:
    tree = ast.parse("\n".join(_program_lines(cell)))
    reads = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    ]
    node = min(reads, key=lambda n: (n.lineno, n.col_offset), default=None)
    if node is None:
        return Span.of(cell.first_line, 0, cell.first_line, 0)
    line = cell.first_line + node.lineno - 1
    return Span.of(line, node.col_offset, line, node.col_offset + len(name))

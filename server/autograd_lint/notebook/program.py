"""A notebook's code cells as one Python program, and positions mapped back to cells.

Cells run in document order in one namespace, so their code is analysed as one module.
Each code cell is preceded by a marker line, `__autograd_lint_cell__ = N`: plain data to
the analysis, and a statement of its own, so a fix that moves code (libcst carries the
comments above a statement along with it) leaves the program cut at the markers, which
is how its text goes back into the right cells. IPython syntax (`%magic`, `!shell`, `x = !ls`,
`obj?`) becomes `pass` / `None` from the column where it starts, so every position before
it, and every other line, stays where it was; cell magics other than the timing and
capture ones (`%%bash`, `%%html`, ...) hold no Python and become blank lines.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from ..analysis.model import Finding, Span
from ..rules import severity_of

MARKER = "__autograd_lint_cell__ = {}"
_MARKER_RE = re.compile(r"^__autograd_lint_cell__ = (\d+)$")
# A magic's replacement ends with this comment, so the original line can come back.
_MAGIC_TAG = "  # autograd-lint: magic {}"
_MAGIC_TAG_RE = re.compile(r"(pass|None)  # autograd-lint: magic (\d+)$")
# Cell magics whose body is Python run once (or timed): their body is analysed.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "px"})
_ASSIGNED_MAGIC = re.compile(r"^(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)[%!]")


@dataclass
class Cell:
    index: int  # 0-based over all cells; shown 1-based, as Jupyter and ruff count them
    source: str
    first_line: int = 0  # program line of the cell's line 1
    line_count: int = 0
    # cell line -> (original line, column where the magic starts)
    magics: dict[int, tuple[str, int]] = field(default_factory=dict)
    opaque: bool = False  # a non-Python cell magic: nothing in it is analysed
    error: SyntaxError | None = None  # the cell does not parse: Jupyter would not run it

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass
class Program:
    text: str
    cells: list[Cell]  # the code cells, in order

    def __post_init__(self):
        self._starts = [cell.first_line for cell in self.cells]

    def cell_at(self, line: int) -> Cell | None:
        """The code cell holding program line `line` (None: a marker line, or outside)."""
        at = bisect.bisect_right(self._starts, line) - 1
        if at < 0:
            return None
        cell = self.cells[at]
        return cell if line < cell.first_line + max(cell.line_count, 1) else None

    def cell_numbered(self, number: int) -> Cell | None:
        return next((c for c in self.cells if c.number == number), None)

    def to_cell_span(self, span: Span) -> tuple[Cell | None, Span]:
        cell = self.cell_at(span.start.line)
        if cell is None:
            return None, span
        shift = cell.first_line - 1
        last = max(cell.line_count, 1)
        end_line, end_col = span.end.line - shift, span.end.column
        if end_line > last:  # a span running past the cell ends with the cell
            lines = _cell_lines(cell.source)
            end_line, end_col = last, len(lines[-1]) if lines else 0
        return cell, Span.of(span.start.line - shift, span.start.column, end_line, end_col)

    def to_program_line(self, cell: Cell, line: int) -> int:
        return cell.first_line + line - 1

    def localize(self, finding: Finding) -> Finding:
        """The finding in cell coordinates: its span and its steps in this notebook get
        `cell` set and lines counted from the cell's first line."""
        cell, span = self.to_cell_span(finding.span)
        steps = []
        for step in finding.evidence:
            if step.path and step.path != finding.path:
                steps.append(step)
                continue
            step_cell, step_span = self.to_cell_span(step.span)
            steps.append(
                dataclasses.replace(
                    step, span=step_span, cell=step_cell.number if step_cell else None
                )
            )
        return dataclasses.replace(
            finding,
            span=span,
            cell=cell.number if cell else None,
            evidence=tuple(steps),
            loop=self.to_cell_span(finding.loop)[1] if finding.loop else None,
        )

    def syntax_findings(self, path: str) -> list[Finding]:
        """AG000 for each code cell that does not parse (in program coordinates)."""
        out = []
        for cell in self.cells:
            if cell.error is None:
                continue
            line = max(cell.error.lineno or 1, 1)
            column = max((cell.error.offset or 1) - 1, 0)
            at = self.to_program_line(cell, min(line, max(cell.line_count, 1)))
            message = f"syntax error: {cell.error.msg}" if cell.error.msg else "syntax error"
            message += " (the cell is not run, so it is not analysed)"
            out.append(
                Finding(
                    "AG000",
                    severity_of("AG000", "syntax"),
                    message,
                    Span.of(at, column, at, column + 1),
                    path=path,
                    kind="syntax",
                )
            )
        return out

    # -- fixed program text back into cells ----------------------------------------------

    def split(self, new_text: str) -> dict[int, str] | None:
        """Each code cell's new source (by cell index) from a fixed program text, magics
        restored; None when the markers no longer match (the fix is then not applied)."""
        pieces: dict[int, list[str]] = {}
        current: list[str] | None = None
        order = []
        for line in new_text.split("\n"):
            marker = _MARKER_RE.match(line)
            if marker:
                number = int(marker.group(1))
                current = pieces.setdefault(number, [])
                order.append(number)
                continue
            if current is None:
                if line.strip():
                    return None
                continue
            current.append(line)
        if order != [cell.number for cell in self.cells]:
            return None
        if self.cells and pieces[order[-1]] and pieces[order[-1]][-1] == "":
            pieces[order[-1]].pop()  # the program's final newline
        out = {}
        for cell in self.cells:
            lines = pieces[cell.number]
            if lines == _program_lines(cell):
                out[cell.index] = cell.source  # untouched: exactly as it was
                continue
            if cell.opaque or cell.error is not None:
                return None
            # Kept line for line (blank ones too), so the cells' program is this text.
            text = "\n".join(_restore(line, cell) for line in lines)
            out[cell.index] = text + "\n" if cell.source.endswith("\n") else text
        return out


def _restore(line: str, cell: Cell) -> str:
    tag = _MAGIC_TAG_RE.search(line)
    if tag is None:
        return line
    original, column = _magic_by_id(cell, int(tag.group(2)))
    return line[: tag.start()] + original[column:] if original is not None else line


def _magic_by_id(cell: Cell, number: int) -> tuple[str | None, int]:
    found = cell.magics.get(number)
    return found if found else (None, 0)


def build_program(cells: Iterable[tuple[int, str]]) -> Program:
    """The program of `(cell index, source)` pairs of the notebook's Python code cells."""
    parts: list[str] = []
    out: list[Cell] = []
    line = 1
    for index, source in cells:
        cell = _prepare(index, source)
        parts.append(MARKER.format(cell.number))
        line += 1
        cell.first_line = line
        body = _program_lines(cell)
        cell.line_count = len(body)
        parts.extend(body)
        line += len(body)
        out.append(cell)
    return Program("\n".join(parts) + "\n" if parts else "", out)


def _program_lines(cell: Cell) -> list[str]:
    lines = _cell_lines(cell.source)
    if cell.opaque or cell.error is not None:
        return [""] * len(lines)
    for number, (original, column) in cell.magics.items():
        token = "None" if _ASSIGNED_MAGIC.match(original) else "pass"
        lines[number - 1] = original[:column] + token + _MAGIC_TAG.format(number)
    return lines


def _cell_lines(source: str) -> list[str]:
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def _prepare(index: int, source: str) -> Cell:
    cell = Cell(index, source)
    lines = _cell_lines(source)
    first = lines[0].lstrip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            cell.opaque = True
            return cell
    if _parses("\n".join(lines)) is not None:
        cell.magics = _find_magics(lines)
        cell.error = _parses("\n".join(_program_lines(cell)))
    return cell


@lru_cache(maxsize=4096)
def _parses(text: str) -> SyntaxError | None:
    """None when the text parses; a notebook's unchanged cells are not parsed again."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not our report
            ast.parse(text)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return SyntaxError(str(exc))
    return None


def _find_magics(lines: list[str]) -> dict[int, tuple[str, int]]:
    """Lines holding IPython syntax, only looked for in a cell that does not parse as is
    (so `%` inside a string of valid code is never touched)."""
    magics = {}
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith(("%", "!", "?")):
            magics[number] = (line, indent)
        elif (assigned := _ASSIGNED_MAGIC.match(line)) is not None:
            magics[number] = (line, assigned.end() - 1)
        elif stripped.endswith("?") and not stripped.startswith("#") and "#" not in stripped:
            magics[number] = (line, indent)
    return magics

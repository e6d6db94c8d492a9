"""`check --fix` / `--diff` on notebooks: rewriting cell sources.

Fixes run on the notebook's program text like on any file; the fixed text is cut back
into cells at the marker lines, and only the cells whose source changed are written, into
the file's own JSON text (see reader.with_sources).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from ..fixes.cli_support import FileFix
from .program import Program
from .reader import RawNotebook, with_sources


@dataclass
class NotebookFix(FileFix):
    """A FileFix whose text is the notebook's JSON; diffs and messages speak of cells."""

    raw: RawNotebook | None = None
    program: Program | None = None  # the program the fixes were computed on
    sources: dict | None = None  # cell index -> new source (every code cell)

    def save(self) -> None:
        with open(self.path, "w", encoding=self.encoding, newline="") as out:
            out.write(self.new)

    def diff(self) -> str:
        text = ""
        name = self.path.as_posix()
        for cell in self.raw.cells if self.sources else ():
            new = self.sources.get(cell.index, cell.source)
            if new == cell.source:
                continue
            lines = difflib.unified_diff(
                cell.source.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{name}:cell {cell.index + 1}",
                tofile=f"b/{name}:cell {cell.index + 1}",
            )
            for line in lines:
                text += line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        return text

    def describe(self, verb: str = "fixed") -> list[str]:
        out = []
        for fix in self.applied:
            line = fix.edits[0].span.start.line
            cell = self.program.cell_at(line) if self.program else None
            where = f"cell {cell.number}:{line - cell.first_line + 1}" if cell else f"{line}"
            out.append(f"{self.path}:{where}: {fix.code} {verb}: {fix.title}")
        return out


def notebook_fix(
    path: Path, raw: RawNotebook, program: Program, new_text: str, applied, remaining
) -> NotebookFix:
    sources = program.split(new_text)
    if sources is None:  # a fix moved code across a cell boundary marker: do not write it
        return NotebookFix(path, raw.text, raw.text, "utf-8", [], remaining, raw, program, None)
    new_json = with_sources(raw, sources)
    return NotebookFix(path, raw.text, new_json, "utf-8", applied, remaining, raw, program, sources)

"""Reading nbformat 4 JSON, and writing back changed cell sources byte for byte.

No nbformat dependency: the schema we rely on is small (a `cells` list of objects with
`cell_type` and `source`), and we need what nbformat cannot give, the offsets of each
`source` value in the file, so that a fix leaves outputs, metadata, ids and the file's
own formatting exactly as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


class NotebookError(ValueError):
    """The file is not a notebook we can read; the message says why, for an AG000."""


@dataclass(frozen=True)
class RawCell:
    index: int  # 0-based over all cells, markdown and raw included
    kind: str  # "code", "markdown", "raw"
    source: str
    # Where the `source` value lies in the file's text, and whether it was a list of lines.
    start: int
    end: int
    as_list: bool


@dataclass
class RawNotebook:
    text: str
    cells: tuple[RawCell, ...]
    language: str  # metadata.language_info.name / kernelspec.language, "python" if absent
    _item_lines: dict = field(default_factory=dict, repr=False, compare=False)

    def file_line(self, cell_index: int, line: int) -> int:
        """The line of the file (1-based) where line `line` of a cell's source is written:
        for SARIF and GitHub annotations, which know files, not cells."""
        cell = self.cells[cell_index]
        if cell.start < 0:
            return 1
        if cell_index not in self._item_lines:
            self._item_lines[cell_index] = _item_lines(self.text, cell)
        lines = self._item_lines[cell_index]
        return (
            lines[min(max(line, 1), len(lines)) - 1] if lines else _line_of(self.text, cell.start)
        )


def parse_notebook(text: str) -> RawNotebook:
    """The cells of a notebook's JSON text, or NotebookError saying what is wrong."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        raise NotebookError(message) from None
    if not isinstance(document, dict):
        raise NotebookError("not a notebook: the JSON is not an object")
    version = document.get("nbformat")
    if version != 4:
        raise NotebookError(f"unsupported notebook format: nbformat {version!r} (4 is read)")
    cells = document.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no `cells` list")
    spans = _source_spans(text)
    if len(spans) != len(cells):  # cannot happen for valid JSON; guards the scanner
        raise NotebookError("not a notebook: cells could not be located in the file")
    out = []
    for index, (cell, (start, end)) in enumerate(zip(cells, spans, strict=True)):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"cell {index + 1}: not a cell (no `cell_type`)")
        source = cell.get("source", "")
        as_list = isinstance(source, list)
        if as_list and all(isinstance(part, str) for part in source):
            source = "".join(source)
        elif not isinstance(source, str):
            raise NotebookError(f"cell {index + 1}: `source` is neither text nor a list of lines")
        out.append(RawCell(index, cell["cell_type"], source, start, end, as_list))
    return RawNotebook(text, tuple(out), _language(document.get("metadata")))


def _language(metadata) -> str:
    if not isinstance(metadata, dict):
        return "python"
    info = metadata.get("language_info")
    if isinstance(info, dict) and isinstance(info.get("name"), str):
        return info["name"].lower()
    kernel = metadata.get("kernelspec")
    if isinstance(kernel, dict) and isinstance(kernel.get("language"), str):
        return kernel["language"].lower()
    return "python"


# -- offsets of each cell's `source` --------------------------------------------------------


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def _members(text: str, at: int):
    """(key, value start, value end) of the JSON object at `at` (already known valid)."""
    at = _skip(text, at)
    assert text[at] == "{"
    at = _skip(text, at + 1)
    if text[at] == "}":
        return
    while True:
        key, at = json.decoder.scanstring(text, at + 1)
        at = _skip(text, at)
        at = _skip(text, at + 1)  # the colon
        _, end = _DECODER.raw_decode(text, at)
        yield key, at, end
        at = _skip(text, end)
        if text[at] == "}":
            return
        at = _skip(text, at + 1)  # the comma


def _source_spans(text: str) -> list[tuple[int, int]]:
    cells_at = next(((s, e) for key, s, e in _members(text, 0) if key == "cells"), None)
    if cells_at is None:
        return []
    spans = []
    at = _skip(text, cells_at[0] + 1)
    while text[at] != "]":
        _, end = _DECODER.raw_decode(text, at)
        if text[at] == "{":
            found = [(s, e) for key, s, e in _members(text, at) if key == "source"]
            spans.append(found[-1] if found else (-1, -1))  # the last one wins, as in json
        else:
            spans.append((-1, -1))
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return spans


# -- writing sources back ---------------------------------------------------------------------


def with_sources(notebook: RawNotebook, new_sources: dict[int, str]) -> str:
    """The notebook's text with the given cells' sources replaced, all else byte-identical."""
    text = notebook.text
    ascii_only = _writes_ascii(text)
    pieces, last = [], 0
    for cell in notebook.cells:
        if cell.index not in new_sources or new_sources[cell.index] == cell.source:
            continue
        if cell.start < 0:
            raise NotebookError(f"cell {cell.index + 1} has no source to rewrite")
        pieces.append(text[last : cell.start])
        pieces.append(_encode(text, cell, new_sources[cell.index], ascii_only))
        last = cell.end
    pieces.append(text[last:])
    return "".join(pieces)


def _writes_ascii(text: str) -> bool:
    """Whether the file escapes non-ASCII characters (json's default) or writes them
    (nbformat's choice): a file with neither keeps nbformat's."""
    return text.isascii() and "\\u" in text


def _encode(text: str, cell: RawCell, source: str, ascii_only: bool) -> str:
    def string(value: str) -> str:
        return json.dumps(value, ensure_ascii=ascii_only)

    if not cell.as_list:
        return string(source)
    lines = source.splitlines(keepends=True)
    if not lines:
        return "[]"
    old = text[cell.start : cell.end]
    if "\n" not in old and old != "[]":  # written on one line: keep it on one line
        return "[" + ", ".join(string(line) for line in lines) + "]"
    if old.strip() == "[]" or "\n" not in old:
        indent = _line_indent(text, cell.start)
        before, after = "\n" + indent + " ", "\n" + indent
    else:
        first = _skip(old, 1)
        before = old[1:first]
        last = len(old) - 1
        while old[last - 1] in _WHITESPACE:
            last -= 1
        after = old[last : len(old) - 1]
    return "[" + before + ("," + before).join(string(line) for line in lines) + after + "]"


def _line_indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    end = line_start
    while end < at and text[end] in " \t":
        end += 1
    return text[line_start:end]


def _line_of(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _item_lines(text: str, cell: RawCell) -> list[int]:
    """The file line of each source line: each item of a list of lines, else the value's."""
    if not cell.as_list:
        return []
    out, at = [], _skip(text, cell.start + 1)
    line, counted = 1, 0
    while text[at] != "]":
        line += text.count("\n", counted, at)
        counted = at
        _, end = _DECODER.raw_decode(text, at)
        out.append(line)
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return out

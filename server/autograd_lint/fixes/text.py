"""Lines, positions and minimal edits between two versions of a text."""

from __future__ import annotations

import difflib
import re

from ..analysis.model import Position, Span
from .model import TextEdit

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_BREAK = re.compile(r"(?:\r\n|\r|\n)\Z")


def split_lines(text: str) -> list[str]:
    """Lines with their line breaks (\\n, \\r\\n or \\r, as editors count them)."""
    return _LINE.findall(text)


def line_start_position(lines: list[str], index: int) -> Position:
    """The position where 0-based line `index` starts; past the end, the text's end."""
    if index < len(lines):
        return Position(index + 1, 0)
    if not lines:
        return Position(1, 0)
    last = lines[-1]
    if _BREAK.search(last):
        return Position(len(lines) + 1, 0)
    return Position(len(lines), len(last))


def minimal_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """Whole-line edits that turn `old` into `new`, one per changed run of lines."""
    if old == new:
        return ()
    old_lines, new_lines = split_lines(old), split_lines(new)
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    edits = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        span = Span(line_start_position(old_lines, i1), line_start_position(old_lines, i2))
        edits.append(TextEdit(span, "".join(new_lines[j1:j2])))
    return tuple(edits)


def offset_of(text: str, lines: list[str], position: Position) -> int:
    index = position.line - 1
    if index >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[:index])
    content = _BREAK.sub("", lines[index])
    return start + min(position.column, len(content))


def apply_edits(text: str, edits) -> str:
    """Apply non-overlapping edits (all against `text`); overlapping ones raise ValueError."""
    lines = split_lines(text)
    ranges = sorted(
        (offset_of(text, lines, e.span.start), offset_of(text, lines, e.span.end), e.new_text)
        for e in edits
    )
    for (_, end, _), (start, _, _) in zip(ranges, ranges[1:]):
        if start < end:
            raise ValueError("overlapping edits")
    out = text
    for start, end, new_text in reversed(ranges):
        out = out[:start] + new_text + out[end:]
    return out

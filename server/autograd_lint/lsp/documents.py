"""Open documents: their text (split into LSP lines), version, and last analysis.

pygls' own document store splits lines with `str.splitlines`, which also breaks at form
feeds, `\\x1c`..`\\x1e` and U+2028; LSP (and Python's tokenizer) break only at `\\n`,
`\\r\\n` and `\\r`. A file with a form feed would then get its edits applied at the wrong
place, so the server keeps its own store.
"""

from __future__ import annotations

import asyncio
import functools
import re
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from ..analysis.model import Finding
from .convert import LineIndex, code_points

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines with their terminators; the last one has none (and may be empty)."""
    if "\r" not in text:
        # Only \n breaks: str.split, then the terminators put back (five times faster than
        # the pattern on a 5,000-line file, which every first open splits).
        lines = text.split("\n")
        last = lines.pop()
        lines = [line + "\n" for line in lines]
        lines.append(last)
        return lines
    lines = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    lines.append(text[start:])
    return lines


def uri_to_path(uri: str) -> str:
    """A filesystem path for `file:` URIs; for others (untitled:, junk) the URI itself."""
    try:
        parsed = urlparse(uri)
    except ValueError:
        return uri
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    # file:///c%3A/x on Windows clients
    if len(path) >= 3 and path[0] == "/" and path[2] == ":":
        path = path[1:]
    return path or uri


@dataclass
class Document:
    """An open document. Its text is kept as lines while it is being edited (changes
    patch a few of them) and as one string, which takes less than half the memory of
    the lines and is the very string the project's overlay holds (see
    AutogradLintServer.text_changed); either form is made from the other when asked for."""

    uri: str
    language_id: str
    version: int | None
    text: InitVar[str]
    path: str = ""
    # The engine's per-document cache (see autograd_lint.analysis.AnalysisCache).
    cache: object = None
    # The version the findings belong to; None until analysed, or when settings or an
    # imported module changed (editors always send a version).
    analysed_version: int | None = None
    findings: list[Finding] = field(default_factory=list)
    # None for a document not edited lately: see AutogradLintServer.diagnostics_of.
    diagnostics: list[types.Diagnostic] | None = field(default_factory=list)
    # (index, code, span) -> (finding, its line numbers and their text, diagnostic), from the
    # last analysis.
    converted: dict = field(default_factory=dict)
    # id(diagnostic) -> (diagnostic, its JSON text), from the last publish.
    diagnostics_json: dict = field(default_factory=dict)
    # Changes only when the diagnostics do, so pull clients get "unchanged" reports.
    result_id: str = ""
    pending: asyncio.Task | None = None
    last_change: float = 0.0
    # Effective checker settings, recomputed after a configuration change.
    settings: object = None
    # The project (autograd_lint.workspace.Workspace) that resolves its imports.
    project: object = None
    _source: str | None = field(default=None, init=False, repr=False)
    _lines: list[str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self, text: str):
        self._source = text
        if not self.path:
            self.path = uri_to_path(self.uri)

    @property
    def source(self) -> str:
        if self._source is None:
            self._source = "".join(self._lines)
        return self._source

    @property
    def lines(self) -> list[str]:
        """Lines with their terminators (LSP's line breaks: \\n, \\r\\n, \\r)."""
        if self._lines is None:
            self._lines = split_lines(self._source)
        return self._lines

    @functools.cached_property
    def resolved_path(self) -> str:
        """The path as the project's import graph names it."""
        try:
            return str(Path(self.path).resolve())
        except (OSError, ValueError):
            return self.path

    @property
    def is_stale(self) -> bool:
        return self.analysed_version is None or self.analysed_version != self.version

    @property
    def is_python(self) -> bool:
        # A client without filetype detection (Neovim started bare) sends an empty or a
        # plain-text language id: a `.py` file is still Python then. Another language's id
        # (markdown, a notebook's cells) is taken at its word.
        if self.language_id == "python":
            return True
        untyped = self.language_id.lower() in ("", "plaintext", "text")
        return untyped and self.uri.split("?", 1)[0].lower().endswith((".py", ".pyi"))

    def set_text(self, text: str) -> None:
        self._source, self._lines = text, None

    def compact(self) -> None:
        """Keep the text as one string (a document not being edited)."""
        self._source = self.source
        self._lines = None

    def line_index(self, encoding: str) -> LineIndex:
        return LineIndex(self.lines, encoding)

    def apply_change(self, change, encoding: str) -> None:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            self.set_text(change.text)
            return
        lines = self.lines
        self._source = None
        start, end = change.range.start, change.range.end
        if (end.line, end.character) < (start.line, start.character):
            start, end = end, start
        last = len(lines) - 1
        start_line, end_line = min(start.line, last), min(end.line, last)
        past_end = 10**9  # a position below the last line means the end of the document
        start_col = _column(
            lines[start_line], start.character if start.line <= last else past_end, encoding
        )
        end_col = _column(
            lines[end_line], end.character if end.line <= last else past_end, encoding
        )
        # Re-split one line more on each side: an edit next to a lone \r can join it with a
        # \n into one line break (or split a \r\n pair into two).
        low, high = max(start_line - 1, 0), min(end_line + 1, last)
        text = (
            "".join(lines[low:start_line])
            + lines[start_line][:start_col]
            + change.text
            + lines[end_line][end_col:]
            + "".join(lines[end_line + 1 : high + 1])
        )
        replacement = split_lines(text)
        if high < last:
            # `text` ends with the terminator of lines[high]: the empty line split_lines
            # puts after it is not there.
            replacement.pop()
        lines[low : high + 1] = replacement


def _column(line: str, units: int, encoding: str) -> int:
    """Code-point column of a client position inside `line`, never past its terminator."""
    content = line.rstrip("\r\n")
    return code_points(content, units, encoding)


class DocumentStore:
    def __init__(self):
        self._documents: dict[str, Document] = {}

    def open(self, item: types.TextDocumentItem) -> Document:
        document = Document(
            uri=item.uri,
            language_id=item.language_id or "",
            version=item.version,
            text=item.text or "",
        )
        self._documents[item.uri] = document
        return document

    def get(self, uri: str) -> Document | None:
        return self._documents.get(uri)

    def close(self, uri: str) -> Document | None:
        return self._documents.pop(uri, None)

    def __iter__(self):
        return iter(list(self._documents.values()))

    def __len__(self) -> int:
        return len(self._documents)

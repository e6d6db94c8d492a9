"""Top-level blocks: the unit of parsing, caching and syntax-error containment.

A block is one top-level statement (a function, a class, a module statement). When
the whole file parses, blocks come from the tree; when it does not, the file is cut
at lines that start a new top-level statement and each piece is parsed alone, so a
half-typed function does not hide the rest of the file. Blocks keep the line at which
their tree was parsed (`parsed_start`) and where they sit now (`start`): a block that
moves because lines were added above it keeps its tree and its cached results.
"""

from __future__ import annotations

import ast
import re
import warnings

from .model import Position, Span

LINE_BREAK = re.compile(r"\r\n|\r|\n")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A line that cannot start a new top-level statement even at column 0.
CONTINUATION = re.compile(r"(else|elif|except|finally|case)\b|[)\]}#]|$")
MAX_MERGE = 8  # neighbours tried when a piece only parses together with the next ones


def split_lines(source: str) -> list[str]:
    """Lines as `ast` counts them (\\n, \\r\\n and \\r), without their endings."""
    if "\r" not in source:
        return source.split("\n")  # four times faster than the pattern
    return LINE_BREAK.split(source)


def head_of(source: str, max_lines: int) -> tuple[str, int]:
    """(`source` cut before a statement start at or before line max_lines + 1, the number
    of lines cut off): the analysis's time and memory grow with the text, so a huge file
    is analysed up to a bound. Cheap on any size: only the lines near the cut are split."""
    separator = "\n" if "\n" in source or "\r" not in source else "\r"
    if source.count(separator) <= max_lines:
        return source, 0  # every file an editor holds: one C-speed count, on each keystroke
    end = -1
    for _ in range(max_lines + 1):
        end = source.find(separator, end + 1)
        if end < 0:
            return source, 0
    window = source[:end].rsplit(separator, CUT_WINDOW)  # lines up to max_lines + 1
    if len(window) > CUT_WINDOW:
        window = window[1:]  # the first item is all the text before the window
    first = max_lines + 1 - len(window)  # 0-based line number of window[0]
    points = cut_points(window, 1, len(window))
    keep = first + points[-1] if points else max_lines
    total = source.count(separator) + (not source.endswith(separator))
    head = source[: _offset_of_line(source, separator, keep)]
    return head, total - keep


CUT_WINDOW = 2000  # lines searched back from the bound for a statement start


def _offset_of_line(source: str, separator: str, line: int) -> int:
    """Offset where 0-based `line` starts (after its separator)."""
    end = -1
    for _ in range(line):
        end = source.find(separator, end + 1)
    return end + 1


class Block:
    __slots__ = (
        "lines", "text", "key", "start", "parsed_start", "statements", "error", "_names", "path",
        "memo",
    )  # fmt: skip

    def __init__(self, lines: list[str], start: int, statements: list, parsed_start: int, error):
        self.lines = lines
        self.text = "\n".join(lines)
        self.key = hash(self.text)
        self.start = start  # current 1-based line of lines[0]
        self.parsed_start = parsed_start  # line number lines[0] has in the tree
        self.statements = statements
        self.error: SyntaxError | None = error
        self._names: frozenset[str] | None = None
        self.path: str | None = None  # set for blocks of another file than the analysed one
        self.memo: dict = {}  # facts derived from this block's text, kept while it lives

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1

    @property
    def names(self) -> frozenset[str]:
        """Every identifier in the block's text: what it may depend on."""
        if self._names is None:
            self._names = frozenset(IDENTIFIER.findall(self.text))
        return self._names

    def defines(self) -> list[str]:
        found = self.memo.get("defines")
        if found is None:
            found = self.memo["defines"] = self._defines()
        return found

    def _defines(self) -> list[str]:
        out = []
        for statement in self.statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.append(statement.name)
            elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = getattr(statement, "targets", None) or [statement.target]
                for target in targets:
                    out.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                out.extend((a.asname or a.name).partition(".")[0] for a in statement.names)
        return out

    # -- positions --------------------------------------------------------------------------
    def position(self, line: int, byte_col: int) -> Position:
        index = line - self.parsed_start
        text = self.lines[index] if 0 <= index < len(self.lines) else ""
        if text.isascii():
            column = byte_col
        else:
            column = len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))
        return Position(index + self.start, column)

    def span_of(self, node: ast.AST) -> Span:
        start = self.position(node.lineno, node.col_offset)
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None)
        end = self.position(end_line, node.col_offset + 1 if end_col is None else end_col)
        return Span(start, end)

    def error_span(self) -> Span:
        error = self.error
        line = error.lineno or self.parsed_start
        line = min(max(line, self.parsed_start), self.parsed_start + len(self.lines) - 1)
        offset = max((error.offset or 1) - 1, 0)
        text = self.lines[line - self.parsed_start]
        # SyntaxError offsets are 1-based character offsets into the line.
        offset = min(offset, len(text))
        position = Position(line - self.parsed_start + self.start, offset)
        return Span(position, Position(position.line, min(offset + 1, max(len(text), offset))))


# The filename given to `ast.parse`. On a syntax error CPython re-reads the error's line
# from the file of that name, if one exists, to turn the byte offset into a column: the line
# on disk, wrong for a piece of a cut file, an unsaved buffer or a hostile file named like
# the placeholder in the working directory. No file is named "".
PARSE_FILENAME = ""


def parse(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in user code
        return ast.parse(text, PARSE_FILENAME)


def blocks_from_tree(tree: ast.Module, lines: list[str], offset: int = 0) -> list[Block]:
    """The tree's top-level statements as blocks; `tree` was parsed from lines[offset:]."""
    groups: list[tuple[int, int, list]] = []
    for statement in tree.body:
        first = statement.lineno
        for decorator in getattr(statement, "decorator_list", ()):
            first = min(first, decorator.lineno)
        last = statement.end_lineno or statement.lineno
        if groups and first <= groups[-1][1]:  # `a = 1; b = 2` share a line: one block
            start, _, statements = groups[-1]
            groups[-1] = (start, max(last, groups[-1][1]), [*statements, statement])
        else:
            groups.append((first, last, [statement]))
    return [
        Block(lines[offset + a - 1 : offset + b], offset + a, group, a, None)
        for a, b, group in groups
    ]


PYTHON_BLANK = " \t\f\r"


def cut_points(lines: list[str], begin: int, end: int) -> list[int]:
    """0-based indexes in [begin, end) where a new top-level statement may start."""
    points = []
    # The line above `begin` decides too (a `\` or a decorator joins the next line to it).
    previous = next(
        (t.rstrip() for t in reversed(lines[max(begin - 64, 0) : begin]) if t.strip()), ""
    )
    for index in range(begin, end):
        text = lines[index]
        if (
            text[:1] not in ("", " ", "\t")
            and not CONTINUATION.match(text)
            and not previous.endswith("\\")
            and not previous.startswith("@")
        ):
            points.append(index)
        if text.strip() and not text.lstrip().startswith("#"):
            # A comment ending in a backslash joins nothing: the line after it may start
            # a statement. (A comment line after a `\` line is joined to that line, which
            # stays the one that decides.)
            previous = text.rstrip()
    return points


class ParseMemo:
    """What parsing each piece's text gave in the previous run and in this one.

    An editor's cache re-cuts a whole broken file on each edit (so that the result equals
    a fresh analysis); with the memo only text that is new is parsed again. Each stored
    tree is handed out once per run: two blocks never share AST nodes, which the analysis
    keys facts by.
    """

    __slots__ = ("previous", "current")

    def __init__(self):
        self.previous: dict[str, tuple] = {}
        self.current: dict[str, tuple] = {}

    def parse(self, text: str) -> tuple[list, SyntaxError | None, int]:
        """(statements, error, the line the text's first line has in the statements)."""
        parsed = self.previous.pop(text, None)
        if parsed is None:
            parsed = (*_parse_text(text), 1)
        self.current.setdefault(text, parsed)
        return parsed

    def seed(self, blocks: list[Block]) -> None:
        """Offer the trees of blocks that parsed, whether cut from a tree or as pieces."""
        for block in blocks:
            if block.error is None:
                self.previous.setdefault(block.text, (block.statements, None, block.parsed_start))

    def next_run(self) -> None:
        """Forget what the run that just ended did not use: the memo stays as big as a run."""
        self.previous, self.current = self.current, {}


def blocks_from_pieces(
    lines: list[str], begin: int, end: int, memo: ParseMemo | None = None
) -> list[Block]:
    """Cut lines[begin:end] into blocks and parse each alone (merging where needed)."""
    points = cut_points(lines, begin, end)
    if not points or points[0] != begin:
        points.insert(0, begin)
    bounds = [*points, end]
    pieces = [(bounds[i], bounds[i + 1]) for i in range(len(points))]
    blocks: list[Block] = []
    index = 0
    while index < len(pieces):
        first, last = pieces[index]
        block = _parse_piece(lines, first, last, memo)
        if block.error is not None:
            # A multi-line string or an odd continuation can hold column-0 lines: try the
            # piece together with the next few before calling it broken.
            for extra in range(1, min(MAX_MERGE, len(pieces) - index - 1) + 1):
                merged = _parse_piece(lines, first, pieces[index + extra][1], memo)
                if merged.error is None:
                    block, index = merged, index + extra
                    break
        blocks.append(block)
        index += 1
    return [b for b in blocks if b.statements or b.error is not None]


def _parse_piece(lines: list[str], first: int, last: int, memo: ParseMemo | None) -> Block:
    piece = lines[first:last]
    # Python's blank is spaces, tabs and form feeds; str.strip() also eats a vertical tab
    # or other control characters that Python refuses, so a line of them would vanish.
    while piece and not piece[-1].strip(PYTHON_BLANK):
        piece = piece[:-1]
    text = "\n".join(piece)
    statements, error, parsed_start = memo.parse(text) if memo else (*_parse_text(text), 1)
    return Block(piece, first + 1, statements, parsed_start, error)


def _parse_text(text: str) -> tuple[list, SyntaxError | None]:
    try:
        tree = parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        if not isinstance(error, SyntaxError):
            reason = {RecursionError: "nested too deeply", MemoryError: "out of memory"}
            message = reason.get(type(error)) or str(error) or type(error).__name__
            error = SyntaxError(f"cannot parse: {message}", ("", 1, 1, ""))
        # The block keeps the error, not its traceback: that holds this frame, whose
        # locals hold the error (a cycle that would keep every line of the document
        # alive until the cyclic collector runs).
        return [], error.with_traceback(None)
    return tree.body, None


def _try_parse(text: str) -> ast.Module | None:
    # Pieces are parsed after the except clause has ended: errors raised inside it would
    # carry this one as their context, and its traceback holds the caller's frame (a
    # cycle through the memo that keeps every tree alive until the cyclic collector runs).
    try:
        return parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def build_blocks(source: str, lines: list[str]) -> list[Block]:
    tree = _try_parse(source)
    if tree is None:
        return blocks_from_pieces(lines, 0, len(lines))
    return blocks_from_tree(tree, lines)


def rebuild_blocks(lines: list[str], patched: list[Block], memo: ParseMemo) -> list[Block]:
    """What `build_blocks` gives for `lines`, from blocks patched after an edit, of which
    one at least did not parse.

    The file is cut as `blocks_from_pieces` cuts it, but only around the blocks that need
    it (see `recut.recut_around_broken`): the others kept their text, and so their cut. Then
    whether the whole file parses after all: the blocks before the first broken one parsed
    alone, so they end where a statement may end, and the whole text parses exactly when
    the text from that block on does. Most often the broken block's own tokens already
    say that nothing after it can complete it (`recut.cannot_complete`), and nothing is parsed.
    """
    from .recut import _starts_statement, cannot_complete, recut_around_broken  # builds on us

    blocks = recut_around_broken(lines, patched, memo)
    first = next((i for i, block in enumerate(blocks) if block.error is not None), None)
    # A broken piece that starts with a backslash or a form feed may be the indented body
    # of the block before it (`def f():` then `\` then `    x = 1`): text before it can
    # complete it, so neither its own tokens nor the text from it on decide.
    own_statement = first is None or _starts_statement(lines, blocks[first].start - 1)
    broken_after = blocks[first + 1 :] if first is not None else []
    if first is not None and own_statement and cannot_complete(lines, blocks[first], broken_after):
        return blocks
    offset = blocks[first].start - 1 if first is not None else 0
    if offset and (not own_statement or cut_points(lines, offset, offset + 1) != [offset]):
        first, offset = 0, 0  # the broken piece starts mid-statement: ask about all of it
    tree = _try_parse("\n".join(lines[offset:]))
    if tree is None:
        return blocks
    return [*blocks[: first or 0], *blocks_from_tree(tree, lines, offset)]

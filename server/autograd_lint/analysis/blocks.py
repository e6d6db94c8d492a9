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


def parse(text: str, filename: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in user code
        return ast.parse(text, filename)


def blocks_from_tree(tree: ast.Module, lines: list[str]) -> list[Block]:
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
    return [Block(lines[a - 1 : b], a, group, a, None) for a, b, group in groups]


def cut_points(lines: list[str], begin: int, end: int) -> list[int]:
    """0-based indexes in [begin, end) where a new top-level statement may start."""
    points = []
    previous = ""
    for index in range(begin, end):
        text = lines[index]
        if (
            text[:1] not in ("", " ", "\t")
            and not CONTINUATION.match(text)
            and not previous.endswith("\\")
            and not previous.startswith("@")
        ):
            points.append(index)
        if text.strip():
            previous = text.rstrip()
    return points


def blocks_from_pieces(lines: list[str], begin: int, end: int, filename: str) -> list[Block]:
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
        block = _parse_piece(lines, first, last, filename)
        if block.error is not None:
            # A multi-line string or an odd continuation can hold column-0 lines: try the
            # piece together with the next few before calling it broken.
            for extra in range(1, min(MAX_MERGE, len(pieces) - index - 1) + 1):
                merged = _parse_piece(lines, first, pieces[index + extra][1], filename)
                if merged.error is None:
                    block, index = merged, index + extra
                    break
        blocks.append(block)
        index += 1
    return [b for b in blocks if b.statements or b.error is not None]


def _parse_piece(lines: list[str], first: int, last: int, filename: str) -> Block:
    piece = lines[first:last]
    while piece and not piece[-1].strip():
        piece = piece[:-1]
    try:
        tree = parse("\n".join(piece), filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        if not isinstance(error, SyntaxError):
            error = SyntaxError(f"cannot parse: {type(error).__name__}", (filename, 1, 1, ""))
        # The block keeps the error, not its traceback: that holds this frame, whose
        # locals hold the error (a cycle that would keep every line of the document
        # alive until the cyclic collector runs).
        return Block(piece, first + 1, [], 1, error.with_traceback(None))
    return Block(piece, first + 1, list(tree.body), 1, None)


def build_blocks(source: str, lines: list[str], filename: str) -> list[Block]:
    try:
        tree = parse(source, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return blocks_from_pieces(lines, 0, len(lines), filename)
    return blocks_from_tree(tree, lines)

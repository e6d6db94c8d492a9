"""Re-cutting a file that does not parse around its broken blocks only.

`blocks_from_pieces` cuts a whole file at the lines where a top-level statement may start
and walks the pieces greedily, merging a piece that does not parse with the next ones.
On each keystroke in broken code the editor's cache needs what that walk gives for the
new text; here the walk is re-run only where it can differ from the blocks at hand, and
the broken piece's tokens say when no merge (and no parse of the whole file) can succeed.
"""

from __future__ import annotations

import io
import itertools
import re
import tokenize

from .blocks import MAX_MERGE, Block, ParseMemo, _parse_piece, cut_points


def recut_around_broken(lines: list[str], patched: list[Block], memo: ParseMemo) -> list[Block]:
    """`blocks_from_pieces(lines, 0, len(lines))`, re-cutting only where its greedy walk can
    differ from the blocks at hand.

    The walk takes the piece from one cut point to the next, and only when that piece
    fails to parse does it look further (merging up to MAX_MERGE next pieces). So a block
    that parsed alone and holds no cut point inside ("self-contained") is a piece on which
    the walk decides alone, and starts where the walk arrives after the block before it;
    so is a block whose pieces the walk merges into exactly it. Blocks are kept while
    they are self-contained; from a broken (or not self-contained) one the walk is re-run
    over the current lines until it arrives at the start of a self-contained block again,
    from where the blocks at hand are what it would give.
    Blocks cut from a tree end before trailing comments where a piece holds them; their
    statements are the same.
    """
    out: list[Block] = []
    index, count, total = 0, len(patched), len(lines)
    known = {b.start - 1: b for b in patched if _self_contained(b)}
    while index < count:
        block = patched[index]
        if _self_contained(block):
            out.append(block)
            index += 1
            continue
        position = block.start - 1
        while position < total:
            found, position = _walk_step(lines, position, memo, known)
            if found.statements or found.error is not None:
                out.append(found)
            while index < count and patched[index].start - 1 < position:
                index += 1  # covered by the walk
            if (
                index < count
                and patched[index].start - 1 == position
                and _self_contained(patched[index])
            ):
                break
        else:
            index = count
    return out


def cannot_complete(lines: list[str], broken: Block, after: list[Block]) -> bool:
    """Whether no text after `broken` (a piece the walk cut, see `_end_state`) can make
    the file from it on parse: its tokens end clean, or in an open bracket that the rest
    of the file (blocks that parsed alone, comments, blank lines) leaves open."""
    state = _end_state(broken)
    previous_end = broken.start - 1 + len(broken.lines)
    if state != OPEN_BRACKET:
        return state == CLEAN and _starts_statement(lines, previous_end)
    for block in after:
        if block.error is not None:
            return False
        gap = lines[previous_end : block.start - 1]
        if not all(not text.strip() or text.lstrip().startswith("#") for text in gap):
            return False
        previous_end = block.start - 1 + len(block.lines)
    return all(not text.strip() or text.lstrip().startswith("#") for text in lines[previous_end:])


def _self_contained(block: Block) -> bool:
    """Whether the walk, arriving at the block's start, takes the block whole: it parsed,
    and holds no cut point inside, or its pieces merge into exactly it (a function whose
    docstring has lines at column 0) whatever follows it."""
    if block.error is not None:
        return False
    whole = block.memo.get("walk_takes_whole")
    if whole is None:
        whole = not cut_points(block.lines, 1, len(block.lines))
        if not whole:
            _found, end = _walk_step(block.lines, 0, None, {})
            whole = end == len(block.lines)
        block.memo["walk_takes_whole"] = whole
    return whole


WALK_CHUNK = 200  # lines searched at a time for the next cut points


def _next_cuts(lines: list[str], position: int, wanted: int) -> list[int]:
    """Up to `wanted` cut points after `position`, then len(lines) if the file ends first."""
    points: list[int] = []
    begin, total = position + 1, len(lines)
    while len(points) < wanted and begin < total:
        end = min(begin + WALK_CHUNK, total)
        points.extend(cut_points(lines, begin, end))
        begin = end
    if len(points) < wanted:
        points.append(total)
    return points[:wanted]


def _walk_step(
    lines: list[str], position: int, memo: ParseMemo | None, known: dict[int, Block]
) -> tuple[Block, int]:
    """The block `blocks_from_pieces` makes at cut point `position`, and where it goes on.

    A merge is tried only where it may parse: not after a piece whose tokens end clean,
    and not while the pieces added are blocks that parsed alone (see `_end_state`)."""
    ends = _next_cuts(lines, position, MAX_MERGE + 1)
    block = _parse_piece(lines, position, ends[0], memo)
    if block.error is None:
        return block, ends[0]
    state = _end_state(block)
    if state == CLEAN and _starts_statement(lines, ends[0]):
        return block, ends[0]
    balanced = 0  # the next pieces, up to here, are known to open no bracket they leave open
    if state == OPEN_BRACKET:
        while balanced < len(ends) - 1 and _is_balanced(
            lines, ends[balanced], ends[balanced + 1], known
        ):
            balanced += 1
    for extra, end in enumerate(ends[1:], start=1):
        if extra <= balanced:
            continue
        merged = _parse_piece(lines, position, end, memo)
        if merged.error is None:
            return merged, end
    return block, ends[0]


def _is_balanced(lines: list[str], begin: int, end: int, known: dict[int, Block]) -> bool:
    """Whether lines[begin:end] are a block that parsed alone, and comments or blank lines."""
    block = known.get(begin)
    if block is None or block.start - 1 + len(block.lines) > end:
        return False
    tail = lines[block.start - 1 + len(block.lines) : end]
    return all(not text.strip() or text.lstrip().startswith("#") for text in tail)


CLEAN, OPEN_BRACKET, OPEN_OTHER = "clean", "open bracket", "open other"
# What a column-0 line that starts a new logical line may start with. Not a backslash
# (joined with the next line, it may be an indented body) nor a form feed (which resets
# the column, so the spaces after it indent the line).
STATEMENT_START = re.compile(r"[^\W]|[@(\[{\-+~*.'\"]")


def _starts_statement(lines: list[str], index: int) -> bool:
    """Whether the first non-blank line from `index` on (a cut point) starts a statement of
    its own whatever comes before it (or the file ends)."""
    for text in itertools.islice(lines, index, None):
        if text.strip():
            return STATEMENT_START.match(text) is not None
    return True


def _end_state(block: Block) -> str:
    """How a broken piece's tokens end, which decides whether text after it can make it
    parse. The text after a piece starts at a cut point, at column 0:
    - CLEAN (no open bracket, string or line continuation at the end): where the next
      line starts a statement (`_starts_statement`), a new top-level statement starts
      there, so the piece with anything after it parses only if the piece alone does;
    - OPEN_BRACKET: the text after it continues the bracket; text that opens no bracket
      it leaves open (a block that parsed alone) leaves it open, and the end of the file
      inside a bracket does not parse;
    - OPEN_OTHER (an open triple-quoted string, a trailing backslash, a decorator last,
      tokens the tokenizer rejects): nothing is concluded.
    """
    state = block.memo.get("end_state")
    if state is None:
        state = block.memo["end_state"] = _tokens_end_state(block)
    return state


def _tokens_end_state(block: Block) -> str:
    last = next((text for text in reversed(block.lines) if text.strip()), "")
    if last.rstrip().endswith("\\"):
        return OPEN_OTHER
    readline = io.StringIO(block.text + "\n").readline
    line_start = True
    decorator = False  # the last logical line is a decorator: a `def` may follow it
    try:
        for token in tokenize.generate_tokens(readline):
            if token.type in LINE_TOKENS:
                line_start = line_start or token.type == tokenize.NEWLINE
            elif line_start:
                decorator = token.string == "@"
                line_start = False
    except tokenize.TokenError as error:
        return OPEN_BRACKET if "statement" in str(error) else OPEN_OTHER
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return OPEN_OTHER
    return OPEN_OTHER if decorator else CLEAN


LINE_TOKENS = frozenset(
    {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT,
     tokenize.ENDMARKER}
)  # fmt: skip

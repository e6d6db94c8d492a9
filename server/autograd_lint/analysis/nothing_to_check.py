"""Files that no rule can report on, recognised without building their syntax tree.

Most files of a library never back-propagate, never name a framework's training step and
hold nothing a pattern checker looks for (the rules' own text triggers: `is_relevant`,
`frameworks.may_be_driven`, each checker's `wanted`). All the analysis can report for one
is an AG000 when it does not parse, so it needs to know only that: whether it parses.
`symtable.symtable` runs the same parser as `ast.parse` but keeps the C tree it builds,
where `ast.parse` converts every node to a Python object (and frees them all afterwards):
over bench/throughput.py's corpus, about 60% of the time of `ast.parse` on these files,
and the blocks are never made.

Every such file that symtable accepts also parses, with one exception handled here: both
walks of the tree count their depth against a recursion limit, and at the limit they differ
by a level or two. On Python 3.11, where the limit is the interpreter's (three levels per
frame left), a 59,984-term `a+a+...` passes symtable and makes `ast.parse` raise
RecursionError at a limit of 20,000: a text too short to be that deep is taken, a longer one
goes the usual way. On 3.10 `ast.parse` counts no depth, so symtable's walk is the stricter
one. From 3.12 on both limits follow the C stack (a 2,995-term chain tells them apart on
3.12), which no length of text bounds: there every file goes the usual way. Whatever symtable
refuses (a syntax error, or what only its pass checks: `nonlocal` at module level, a
duplicate argument) goes the usual way too, which says what `ast.parse` makes of it.
"""

from __future__ import annotations

import symtable
import sys
import warnings

from . import frameworks
from .checks import CHECKERS
from .program import is_relevant

# Python 3.11: how many levels of the tree the recursion limit lets each walk go, per unit of
# the limit (CPython's COMPILER_STACK_FRAME_SCALE), and the most levels a parse can nest with one
# character per level: brackets and prefix operators nest by recursion in the parser,
# which stops them before 6,000 levels (its MAXSTACK). Every other level costs at least
# two characters (`+a`, `.b`, `()`).
LEVELS_PER_FRAME = 3
PARSER_NESTING = 6_000
# Levels kept free below the limit: the walks start a few frames apart, and at the limit
# they differ by one level.
MARGIN_LEVELS = 1_000


def parses_with_nothing_to_check(source: str) -> bool:
    """Whether `source` parses (as `ast.parse` decides) and holds nothing any rule looks at.
    Always False from Python 3.12 on (the module's docstring says why), before any scan."""
    if sys.version_info >= (3, 12):
        return False
    if is_relevant(source) or frameworks.may_be_driven(source):
        return False
    if any(checker.wanted(source) for checker in CHECKERS):
        return False
    if not _too_shallow_to_differ(source):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes, as blocks.parse
            symtable.symtable(source, "", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _too_shallow_to_differ(source: str) -> bool:
    """Whether no tree `source` can parse into reaches the depth where the two walks
    part (on 3.11: the levels left below the limit, counted from where the caller stands).
    Only asked below 3.12 (parses_with_nothing_to_check returns before on 3.12 and later)."""
    if sys.version_info < (3, 11):
        return True  # ast.parse counts no depth: symtable's limit is the only one
    levels_left = LEVELS_PER_FRAME * (sys.getrecursionlimit() - _stack_depth())
    deepest = PARSER_NESTING + len(source) // 2
    return deepest < levels_left - MARGIN_LEVELS


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth

"""A huge file is analysed up to a bound (blocks.head_of): where it is cut, held to `ast`.

The head must end just before a statement starts, at or before line max_lines + 1, and at
the last such start (nothing that could be kept is dropped); the count of lines cut off
must be what is left. Whether a line starts a statement is `ast`'s answer: a top-level
statement begins there. Mutation runs (docs/mutation.md) showed a file with old-Mac `\r`
line ends left uncut, and the cut moved off the last statement start, unnoticed.
"""

from __future__ import annotations

import ast
import random

import pytest
from autograd_lint.analysis.blocks import CUT_WINDOW, head_of


def statement_starts(source: str) -> set[int]:
    """0-based lines where a top-level statement starts (the file parses)."""
    return {node.lineno - 1 for node in ast.parse(source).body}


def check_cut(source: str, separator: str, max_lines: int) -> None:
    lines = source.split(separator)
    if lines[-1] == "":
        lines.pop()
    head, cut_off = head_of(source, max_lines)
    assert source.startswith(head)
    keep = head.count(separator)
    assert head == "".join(line + separator for line in lines[:keep])
    assert cut_off == len(lines) - keep
    if len(lines) <= max_lines + 1 or len(source.split(separator)) <= max_lines + 1:
        return
    starts = statement_starts(source.replace(separator, "\n"))
    allowed = [line for line in starts if 0 < line <= max_lines and line > max_lines - CUT_WINDOW]
    assert keep == (max(allowed) if allowed else max_lines), (keep, max(allowed, default=None))


def program(rng: random.Random, count: int) -> list[str]:
    lines = []
    while len(lines) < count:
        shape = rng.choice(["simple", "call", "def", "string"])
        if shape == "simple":
            lines.append(f"x{len(lines)} = {rng.randrange(9)}")
        elif shape == "call":
            lines += ["total = sum([", *["    1,"] * rng.randrange(1, 6), "])"]
        elif shape == "def":
            lines += ["def step(batch):", "    loss = batch * 2", "    return loss"]
        else:
            lines += ['doc = """', "not code", '"""']
    return lines


@pytest.mark.parametrize("separator", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("seed", range(4))
def test_the_cut_is_the_last_statement_start_within_the_bound(separator, seed):
    rng = random.Random(seed)
    max_lines = rng.randrange(20, 60)
    source = separator.join(program(rng, max_lines * 2)) + separator
    check_cut(source, separator, max_lines)


def test_a_file_with_carriage_returns_only_is_cut_too():
    source = "\r".join(f"x{n} = {n}" for n in range(300)) + "\r"
    head, cut_off = head_of(source, 100)
    assert (head.count("\r"), cut_off) == (100, 200)


def test_a_statement_that_fills_the_whole_search_window():
    # Line 1 opens a list that runs past the bound: the only place to cut is before it,
    # and it sits at the very top of the window searched back from the bound.
    max_lines = CUT_WINDOW - 1
    lines = ["x = 1", "y = [", *["    1,"] * (CUT_WINDOW + 200), "]"]
    check_cut("\n".join(lines) + "\n", "\n", max_lines)
    head, _ = head_of("\n".join(lines) + "\n", max_lines)
    assert head == "x = 1\n"

"""The CLI's short cut for files no rule can report on (analysis/nothing_to_check.py).

A file that holds nothing any rule looks at, and that parses, is recognised without its
syntax tree. The short cut must change no finding: each text below is analysed with it and
with it turned off (every file then parsed into blocks), and the findings must be equal.
"""

from __future__ import annotations

import ast
import symtable
import sys
from pathlib import Path

import pytest
from autograd_lint.analysis import engine, nothing_to_check
from autograd_lint.analysis.engine import analyze

REPO = Path(__file__).resolve().parent.parent
# From Python 3.12 on no text is taken (nothing_to_check.py says why): every file is parsed.
TAKEN = sys.version_info < (3, 12)
# Neutral code that no rule is about, in every checkout: the standard library's modules.
STDLIB = sorted(Path(ast.__file__).parent.glob("*.py"))
STDLIB_SAMPLE = STDLIB[::4]
CORPORA = sorted(
    [
        *(REPO / "samples").rglob("*.py"),
        *(REPO / "tests" / "corpus").glob("*.py"),
        *(REPO / "tests" / "realworld" / "cases").rglob("*.py"),
    ]
)


def _findings(text: str, path: str) -> list:
    return analyze(text, path)


def _findings_without_short_cut(text: str, path: str, monkeypatch) -> list:
    with monkeypatch.context() as patched:
        patched.setattr(engine, "parses_with_nothing_to_check", lambda source: False)
        return _findings(text, path)


def _compare_where_taken(paths, monkeypatch) -> int:
    """Checks the findings of each file the short cut takes (the others go the usual way
    whatever it says); returns how many it took."""
    engine._allow_deep_code()  # the recursion limit analyze runs under
    taken = 0
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        if not nothing_to_check.parses_with_nothing_to_check(text):
            continue
        taken += 1
        expected = _findings_without_short_cut(text, str(path), monkeypatch)
        assert _findings(text, str(path)) == expected, path
    return taken


def test_the_standard_library_gets_the_same_findings_and_most_of_it_skips_the_tree(
    monkeypatch,
):
    # Most modules hold nothing a rule looks at: the short cut is the common path there.
    taken = _compare_where_taken(STDLIB_SAMPLE, monkeypatch)
    assert taken > len(STDLIB_SAMPLE) // 2 if TAKEN else taken == 0


def test_the_repository_corpora_get_the_same_findings(monkeypatch):
    assert len(CORPORA) > 100
    taken = _compare_where_taken(CORPORA, monkeypatch)
    assert taken > 0 if TAKEN else taken == 0


@pytest.mark.parametrize(
    "text",
    [
        "def f(:\n    pass\n",  # a syntax error: AG000
        "x = 1\nclass A:\n    def f(self)\n        return 1\n",
        "x = (1,\n",
        "nonlocal x\n",  # refused by symtable's pass only: ast.parse takes it, no AG000
        "def f(a, a):\n    return a\n",
        "def f():\n    x = 1\n    global x\n",
        "from __future__ import braces\n",
        "x = '\\d'\n",  # a SyntaxWarning, not an error
    ],
)
def test_texts_symtable_refuses_go_the_usual_way(text, monkeypatch):
    engine._allow_deep_code()
    expected = _findings_without_short_cut(text, "t.py", monkeypatch)
    assert _findings(text, "t.py") == expected
    parses = _parses(text)
    taken = nothing_to_check.parses_with_nothing_to_check(text)
    assert taken is (TAKEN and parses and _symtable_ok(text))


def test_a_text_that_parses_and_holds_nothing_to_check_takes_the_short_cut(monkeypatch):
    engine._allow_deep_code()
    text = "import os\n\n\ndef join(a, b):\n    return os.path.join(a, b)\n"
    assert nothing_to_check.parses_with_nothing_to_check(text) is TAKEN
    assert analyze(text, "t.py") == []
    # analyze (without a document cache) takes it: no block is built for the text.
    built = []
    monkeypatch.setattr(engine, "build_blocks", lambda *args: built.append(args) or [])
    analyze(text, "t.py")
    assert bool(built) is not TAKEN


def test_a_text_a_rule_looks_at_is_never_taken():
    for text in (
        "loss.backward()\n",
        "torch.autograd.grad(y, x)\n",
        "w = p.data\n",
        "class M:\n    def training_step(self, batch):\n        return batch\n",
    ):
        assert not nothing_to_check.parses_with_nothing_to_check(text), text


def test_a_chain_deep_enough_for_the_walks_to_differ_goes_the_usual_way():
    """At the recursion limit symtable's walk and ast.parse's differ by a level: the
    deepest chain symtable takes makes ast.parse raise (Python 3.11), and the short cut
    does not take it."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(3_000)  # a lower limit than analyze's: shorter chains, as exact
    try:
        chain, parses = _deepest_chain_symtable_takes()
        taken = nothing_to_check.parses_with_nothing_to_check(chain)
    finally:
        sys.setrecursionlimit(limit)
    if sys.version_info[:2] == (3, 11):
        assert not parses
        assert not taken
    assert parses or not taken


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the length bound is 3.11's")
def test_texts_the_length_bound_takes_are_far_from_the_depth_where_the_walks_differ():
    engine._allow_deep_code()
    length = 0
    while nothing_to_check._too_shallow_to_differ(" " * (length + 1000)):
        length += 1000
    assert length > 50_000  # an ordinary library module (~50 KB) is well inside
    # The deepest chain a text of that length can hold (a term per two characters) parses.
    assert _parses(_chain(length // 2))
    # And one with as many terms again as that would be too deep: the bound is not loose
    # by more than twice.
    assert not _parses(_chain(length))


def _deepest_chain_symtable_takes() -> tuple[str, bool]:
    """The chain, and whether ast.parse takes it: both walks start from the same frame
    (each frame above them costs three levels on 3.11)."""
    low, high = 1, 4 * sys.getrecursionlimit()
    while low < high:
        middle = (low + high + 1) // 2
        if _walks(_chain(middle))[0]:
            low = middle
        else:
            high = middle - 1
    return _chain(low), _walks(_chain(low))[1]


def _walks(text: str) -> tuple[bool, bool]:
    """(symtable takes it, ast.parse takes it), from one frame."""
    outcomes = []
    for walk in (lambda: symtable.symtable(text, "", "exec"), lambda: ast.parse(text)):
        try:
            walk()
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            outcomes.append(False)
        else:
            outcomes.append(True)
    return outcomes[0], outcomes[1]


def _chain(terms: int) -> str:
    return "x = " + "+".join(["a"] * terms) + "\n"


def _symtable_ok(text: str) -> bool:
    try:
        symtable.symtable(text, "", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True

"""The lines an edit left alone (AnalysisCache._patch): the halving slice comparisons give
the common prefix and suffix a line-by-line scan gives."""

import random

from autograd_lint.analysis.engine import _common_prefix, _common_suffix


def scanned_prefix(old: list[str], new: list[str], limit: int) -> int:
    count = 0
    while count < limit and old[count] == new[count]:
        count += 1
    return count


def scanned_suffix(old: list[str], new: list[str], limit: int) -> int:
    count = 0
    while count < limit and old[-1 - count] == new[-1 - count]:
        count += 1
    return count


def test_prefix_and_suffix_match_a_scan_on_random_edits():
    draw = random.Random(17)
    for _ in range(5000):
        old = [draw.choice(("a\n", "b\n", "")) for _ in range(draw.randrange(0, 14))]
        new = list(old)
        for _ in range(draw.randrange(0, 3)):  # a few lines replaced, inserted, deleted
            at = draw.randrange(0, len(new) + 1)
            kind = draw.choice(("replace", "insert", "delete"))
            if kind == "insert" or not new:
                new.insert(at, draw.choice(("a\n", "c\n")))
            elif kind == "delete":
                del new[min(at, len(new) - 1)]
            else:
                new[min(at, len(new) - 1)] = "c\n"
        shortest = min(len(old), len(new))
        prefix = scanned_prefix(old, new, shortest)
        assert _common_prefix(old, new, shortest) == prefix
        assert _common_suffix(old, new, shortest - prefix) == scanned_suffix(
            old, new, shortest - prefix
        )


def test_identical_lists_share_everything_and_empty_ones_nothing():
    lines = [f"x = {i}\n" for i in range(5000)]
    assert _common_prefix(lines, list(lines), 5000) == 5000
    assert _common_prefix([], ["a"], 0) == 0
    assert _common_suffix(["a", "b"], ["c", "b"], 2) == 1

"""The exclude globs' texts check (globs.Glob.required) refuses only what the match refuses.

`fullmatch` first asks whether the path holds every literal run the pattern consumes in a
row, and only then walks the states. The check is sound only if each run is consumed by
every match: runs inside a skippable `**/` are not. Random patterns and paths over a small
alphabet (so that matches are frequent) compare the two answers.
"""

from __future__ import annotations

import random

import pytest
from autograd_lint.globs import Glob

PIECES = ["a", "b", "ab", "/", ".", "*", "**", "**/", "/**", "?", "[ab]", "[!a]"]


def random_pattern(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 5)))


def random_path(rng: random.Random) -> str:
    return "".join(rng.choice("ab/.") for _ in range(rng.randint(0, 9)))


@pytest.mark.parametrize("anchored", [True, False])
def test_the_texts_check_refuses_only_paths_the_states_refuse(anchored):
    rng = random.Random(17)
    matched = refused_early = 0
    for _ in range(3000):
        glob = Glob(random_pattern(rng), anchored)
        for _ in range(10):
            path = random_path(rng)
            expected = glob.nfa_match(path)
            assert glob.fullmatch(path) is expected, (glob.tokens, path)
            matched += expected
            refused_early += any(text not in path for text in glob.required)
    # Both answers were met often: the comparison tested something.
    assert matched > 1000 and refused_early > 1000


@pytest.mark.parametrize(
    ("pattern", "anchored", "required"),
    [
        ("generated", False, ("generated",)),  # the `**/` put before it is optional
        ("src/**/*.py", True, ("src/", ".py")),
        ("legacy/**", True, ("legacy/",)),
        ("*", False, ()),
    ],
)
def test_the_required_texts_of_common_patterns(pattern, anchored, required):
    assert Glob(pattern, anchored).required == required


@pytest.mark.parametrize("anchored", [True, False])
def test_plain_text_patterns_answer_as_the_states_do_without_walking(anchored):
    rng = random.Random(19)
    literal_pieces = ["a", "b", "ab", "/", "."]
    matched = 0
    for _ in range(2000):
        text = "".join(rng.choice(literal_pieces) for _ in range(rng.randint(0, 4)))
        for pattern in (text, "**/" + text):
            glob = Glob(pattern, anchored)
            assert glob.literal == text  # taken without the walk
            for _ in range(10):
                path = random_path(rng)
                if rng.random() < 0.3:  # a path that ends with the text, at some depth
                    path = rng.choice(["", random_path(rng) + "/"]) + text
                expected = glob.nfa_match(path)
                assert glob.fullmatch(path) is expected, (pattern, anchored, path)
                matched += expected
    assert matched > 2000
    assert Glob("build*", anchored).literal is None  # a wildcard: the states walk it
    assert Glob("a/**", anchored).literal is None

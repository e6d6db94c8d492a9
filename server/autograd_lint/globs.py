"""gitignore-like `exclude` patterns, matched in time linear in the path.

A repository's own pyproject.toml supplies these patterns, so they are hostile input: as
a backtracking regex, `**e**e**e**e**e**e**e**z` costs seconds per path. A pattern is
compiled instead into a sequence of tokens, one state each, and a path is matched by
moving the set of live states along it character by character (a Thompson NFA):
O(len(path) * len(pattern)) whatever the pattern.

Semantics (unchanged from the regex translation they replace): `*` and `?` and `[...]`
stay within one path segment, `**/` is any number of leading segments, `/**` at the end
is everything below, any other `**` is any text, slashes included.
"""

from __future__ import annotations

import functools
import re

# Token kinds. A token at position i either consumes one character (and the state moves
# to i + 1), loops on itself, or is an epsilon branch.
LITERAL, ONE, CLASS, STAR, ANY, OPTIONAL_DIRS = range(6)


class Glob:
    """One pattern (without its `!` or trailing `/`), ready to match relative posix paths."""

    __slots__ = ("tokens", "required", "literal", "at_any_depth")

    def __init__(self, pattern: str, anchored: bool):
        # Unanchored, a pattern matches a name at any depth: `**/` before it.
        tokens = [] if anchored else _optional_dirs()
        tokens.extend(_tokens(pattern))
        self.tokens = tuple(tokens)
        self.required = _required_texts(self.tokens)
        # A pattern of plain text (`build`, `tests/data`, `**/generated`), the commonest
        # kind, is the path itself or, after a leading `**/`, its end after a slash: no
        # walk at all. (`.bench-cache` asked of 1,484 paths that all hold the text took
        # 0.4 s of walks, before the first file was checked.)
        rest, any_depth = self.tokens, tuple(_optional_dirs())
        self.at_any_depth = rest[:3] == any_depth
        while rest[:3] == any_depth:  # `**/**/x` is `**/x` (an unanchored `**/x` is both)
            rest = rest[3:]
        literal = all(token[0] == LITERAL for token in rest)
        self.literal = "".join(token[1] for token in rest) if literal else None

    def fullmatch(self, path: str) -> bool:
        literal = self.literal
        if literal is not None:
            return path == literal or (self.at_any_depth and path.endswith("/" + literal))
        # Most paths of a run match no pattern, and most patterns hold a name: a path
        # without that text is refused at C speed, before the character-by-character walk
        # (a project's `exclude` is asked of every file: 7 patterns over 1,484 files took
        # 7% of bench/throughput.py's run).
        for text in self.required:
            if text not in path:
                return False
        return self.nfa_match(path)

    def nfa_match(self, path: str) -> bool:
        """The match itself, without the texts check in front of it."""
        tokens = self.tokens
        states = self._closure({0})
        for char in path:
            following = set()
            for i in states:
                if i == len(tokens):
                    continue
                kind = tokens[i][0]
                if kind == STAR:
                    if char != "/":
                        following.add(i)
                elif kind == ANY:
                    following.add(i)
                elif _consumes(tokens[i], char):
                    following.add(i + 1)
            if not following:
                return False
            states = self._closure(following)
        return len(tokens) in states

    def _closure(self, states: set[int]) -> set[int]:
        """Add the states reachable without consuming: past a star, or skipping `**/`."""
        tokens = self.tokens
        todo = list(states)
        while todo:
            i = todo.pop()
            if i == len(tokens):
                continue
            kind = tokens[i][0]
            nexts = ()
            if kind in (STAR, ANY):
                nexts = (i + 1,)
            elif kind == OPTIONAL_DIRS:
                # `(?:.*/)?`: enter the `.*` and `/` that follow it, or skip both.
                nexts = (i + 1, i + 3)
            for j in nexts:
                if j not in states:
                    states.add(j)
                    todo.append(j)
        return states


def _required_texts(tokens: tuple) -> tuple[str, ...]:
    """The runs of literal characters every match consumes in a row: each is in any path
    the pattern matches. A `**/` group (OPTIONAL_DIRS and the two tokens after it) may be
    skipped whole, so its `/` is not required; a star, `?` or class ends a run."""
    runs: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(tokens):
        kind = tokens[i][0]
        if kind == LITERAL:
            current.append(tokens[i][1])
            i += 1
            continue
        if current:
            runs.append("".join(current))
            current = []
        i += 3 if kind == OPTIONAL_DIRS else 1
    if current:
        runs.append("".join(current))
    return tuple(sorted(set(runs), key=len, reverse=True))  # the longest refuses most


def _consumes(token: tuple, char: str) -> bool:
    kind = token[0]
    if kind == LITERAL:
        return char == token[1]
    if kind == ONE:
        return char != "/"
    if kind == CLASS:
        return token[1].fullmatch(char) is not None
    return False


def _optional_dirs() -> list[tuple]:
    return [(OPTIONAL_DIRS,), (ANY,), (LITERAL, "/")]


def _tokens(pattern: str) -> list[tuple]:
    out: list[tuple] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.extend(_optional_dirs())
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.extend([(LITERAL, "/"), (ANY,)])
            i += 3
        elif pattern.startswith("**", i):
            out.append((ANY,))
            i += 2
        elif pattern[i] == "*":
            out.append((STAR,))
            i += 1
        elif pattern[i] == "?":
            out.append((ONE,))
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            chars = pattern[i + 1 : end]
            negate = chars.startswith("!")
            chars = chars[1:] if negate else chars
            body = "[" + ("^" if negate else "") + chars.replace("\\", "\\\\") + "]"
            out.append((CLASS, re.compile(body)))  # matched against one character only
            i = end + 1
        else:
            out.append((LITERAL, pattern[i]))
            i += 1
    # Runs of stars are one star: fewer live states, the same language.
    merged: list[tuple] = []
    for token in out:
        if merged and token[0] in (STAR, ANY) and merged[-1][0] in (STAR, ANY):
            merged[-1] = (ANY,) if ANY in (token[0], merged[-1][0]) else token
        else:
            merged.append(token)
    return merged


@functools.lru_cache(maxsize=256)
def compile_glob(pattern: str, anchored: bool) -> Glob:
    return Glob(pattern, anchored)

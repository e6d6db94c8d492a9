"""Expected findings written into source as trailing comments.

A line that should carry a finding ends with `# expect: AG001`, or with several
codes: `# expect: AG001, AG003`. Samples, rule examples and fixtures all use this
one convention, so every test reads the marks through `expected_marks`.
"""

from __future__ import annotations

import io
import re
import tokenize

_MARK = re.compile(r"#\s*expect:\s*(AG\d{3}(?:\s*,\s*AG\d{3})*)\s*$")
_CODE = re.compile(r"AG\d{3}")


def _comments(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment; a `#` inside a string literal is not one.

    Sources that do not tokenize (the AG000 examples are broken on purpose) fall
    back to a per-line scan, which is right for every mark that ends its line.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        found = []
        for number, line in enumerate(source.splitlines(), start=1):
            hash_at = line.find("#")
            if hash_at >= 0:
                found.append((number, line[hash_at:]))
        return found
    return [(tok.start[0], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]


def expected_marks(source: str) -> list[tuple[int, str]]:
    """Sorted (line, code) pairs of every `# expect:` mark in `source`."""
    marks = []
    for line, comment in _comments(source):
        # A mark may follow an ordinary comment: `# carried  # expect: AG001`.
        match = _MARK.search(comment)
        if match:
            marks.extend((line, code) for code in _CODE.findall(match.group(1)))
    return sorted(set(marks))

"""The comment scanner that takes over where `tokenize` gives up, held to `tokenize` itself.

`suppress.comments` finds `# autograd-lint: ignore[...]` comments with the tokenizer; in
code being typed (a bad dedent, an unclosed bracket) the tokenizer stops, and a small
scanner that knows string literals reads the rest. Each snippet here is valid Python: the
tokenizer's comments for it are the truth, and the scanner must find the same ones (same
lines, same text) when the snippet follows a header the tokenizer fails on. A mutation run
(docs/mutation.md) showed escapes, line continuations inside strings and string lengths
could all be misread without a test noticing.
"""

from __future__ import annotations

import io
import tokenize

import pytest
from autograd_lint.analysis.suppress import comments

# The tokenizer raises IndentationError on line 3; everything after it is the scanner's.
BROKEN_HEADER = "if ready:\n        step = 1\n    step = 2\n"
SNIPPETS = {
    "escaped-quote": 'note = "say \\" # not a comment"  # autograd-lint: ignore[AG001]\n',
    "escaped-backslash": 'path = "C:\\\\" # autograd-lint: ignore[AG002]\n',
    "single-escaped": "tag = 'it\\'s # inside'  # real\n",
    "backslash-newline": 'text = "one \\\ntwo # inside"\nloss.backward()  # after the string\n',
    "odd-length": 'a = "abc"  # after odd\nb = "abcd"  # after even\n',
    "empty-strings": "a = ''  # one\nb = \"\"  # two\n",
    "capital-names": "X = model(X_train)  # autograd-lint: ignore[AG001]\n",
    "triple-quoted": 'doc = """\nline # inside\n"""  # after\n',
    "triple-single": "doc = '''a ' b \" # inside'''  # after\n",
    "hash-in-fstring": 'msg = f"{loss:.3f} # inside"  # outside\n',
    "comment-only-lines": "# first\n\n    # indented\nx = 1\n",
    "string-then-escape-at-end": 'end = "tail\\\\"\nnext_line = 2  # seen\n',
}


def tokenizer_comments(source: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]


def test_the_header_really_stops_the_tokenizer():
    with pytest.raises((IndentationError, tokenize.TokenError)):
        list(tokenize.generate_tokens(io.StringIO(BROKEN_HEADER + "x = 1\n").readline))


@pytest.mark.parametrize("snippet", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_scanner_finds_what_the_tokenizer_finds(snippet: str):
    expected = tokenizer_comments(snippet)
    assert expected, "a snippet without a comment checks nothing"
    offset = BROKEN_HEADER.count("\n")
    found = [(line - offset, text) for line, text in comments(BROKEN_HEADER + snippet)]
    assert [c for c in found if c[0] >= 1] == expected

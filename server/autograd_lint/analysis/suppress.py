"""Inline suppressions: `# autograd-lint: ignore[AG001]` on the line a finding is reported on.

    h = rnn(x, h)  # autograd-lint: ignore[AG001]
    h = rnn(x, h)  # autograd-lint: ignore[AG001, AG002]
    h = rnn(x, h)  # autograd-lint: ignore          (every code)
    h = rnn(x, h)  # noqa: AG001                    (flake8/ruff style; only AG codes count)

and for a whole file, a comment anywhere in it:

    # autograd-lint: ignore-file[AG006]
    # autograd-lint: ignore-file                    (every code)

A bare `# noqa` (no codes) is left to the other linters: it is too common to read as
"hide every autograd-lint error on this line". Only real comments count: a `#` inside a string is not one. Comments are found with
`tokenize`; where the tokenizer gives up (unfinished code in an editor), a small
scanner that knows Python's string literals takes over for the rest of the file.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Iterator

from .model import Finding

# `ignore` then an optional bracketed list of codes; `ignored`, `ignore-x` do not count.
_DIRECTIVE = re.compile(
    r"#\s*autograd-lint\s*:\s*ignore(?![\w-])(?:\s*\[(?P<codes>[^\]]*)\])?", re.IGNORECASE
)
_FILE_DIRECTIVE = re.compile(
    r"#\s*autograd-lint\s*:\s*ignore-file(?![\w-])(?:\s*\[(?P<codes>[^\]]*)\])?",
    re.IGNORECASE,
)
# The flake8 form with codes (`AG001, E501` after the colon): ours among them.
_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Za-z]+\d+(?:[\s,]+[A-Za-z]+\d+)*)", re.IGNORECASE)
_OUR_NOQA = re.compile(r"#\s*noqa\s*:[^#]*\bAG\d", re.IGNORECASE)
EVERY_CODE = frozenset({"*"})


def filter_suppressed(findings: Iterable[Finding], source: str) -> list[Finding]:
    findings = list(findings)
    if not findings:
        return findings
    # Tokenizing the file to tell comments from strings takes ~50 ms for 5,000 lines,
    # on every keystroke; it is needed only when a directive sits on a finding's line,
    # or a file-wide one anywhere.
    directive_lines = {
        source.count("\n", 0, m.start()) + 1
        for pattern in (_DIRECTIVE, _OUR_NOQA)
        for m in pattern.finditer(source)
    }
    file_wide = _FILE_DIRECTIVE.search(source) is not None
    if not file_wide and directive_lines.isdisjoint(f.span.start.line for f in findings):
        return findings
    suppressed = suppressions(source)
    everywhere = file_suppressions(source) if file_wide else frozenset()
    return [
        f
        for f in findings
        if not _is_suppressed(f, suppressed.get(f.span.start.line))
        and not _is_suppressed(f, everywhere)
    ]


def _is_suppressed(finding: Finding, codes: frozenset[str] | None) -> bool:
    return bool(codes) and (codes is EVERY_CODE or finding.code.upper() in codes)


def file_suppressions(source: str) -> frozenset[str]:
    """The codes `# autograd-lint: ignore-file[...]` comments ignore in the whole file."""
    out: frozenset[str] = frozenset()
    for _line, text in comments(source):
        for match in _FILE_DIRECTIVE.finditer(text):
            codes = match.group("codes")
            if codes is None:
                return EVERY_CODE
            out |= frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
    return out


def suppressions(source: str) -> dict[int, frozenset[str]]:
    """Line → the codes ignored on it (`EVERY_CODE` for a bare ignore)."""
    out: dict[int, frozenset[str]] = {}
    for line, text in comments(source):
        for match in _DIRECTIVE.finditer(text):
            codes = match.group("codes")
            if codes is None:
                out[line] = EVERY_CODE
            elif out.get(line) is not EVERY_CODE:
                named = frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
                out[line] = out.get(line, frozenset()) | named
        for match in _NOQA.finditer(text):
            ours = frozenset(
                c.upper()
                for c in re.split(r"[\s,]+", match.group("codes"))
                if c.upper().startswith("AG")
            )
            if ours and out.get(line) is not EVERY_CODE:
                out[line] = out.get(line, frozenset()) | ours
    return out


def comments(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment in `source`, however broken the code is."""
    last_line = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            last_line = token.start[0]
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.string
        return
    except Exception:  # TokenError, IndentationError, ...: whatever the input is
        # The tokenizer stops at the first error; lines it has not reached yet are
        # scanned without it. The line it failed on may hold a comment it never yielded.
        pass
    for line, text in _scan_comments(source):
        if line >= last_line:
            yield line, text


_QUOTES = ('"""', "'''", '"', "'")


def _scan_comments(source: str) -> Iterator[tuple[int, str]]:
    """Comments found by tracking string literals only; never fails."""
    line = 1
    i = 0
    n = len(source)
    quote = None  # the open string's delimiter
    while i < n:
        char = source[i]
        if quote is not None:
            if char == "\\":
                if i + 1 < n and source[i + 1] == "\n":
                    line += 1
                i += 2
                continue
            if source.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            if char == "\n":
                line += 1
                if len(quote) == 1:  # an unterminated one-line string ends here
                    quote = None
            i += 1
        elif char == "#":
            end = source.find("\n", i)
            end = n if end == -1 else end
            yield line, source[i:end]
            i = end
        elif char in "\"'":
            quote = next(q for q in _QUOTES if source.startswith(q, i))
            i += len(quote)
        else:
            if char == "\n":
                line += 1
            i += 1

"""Inline suppressions: `# autograd-lint: ignore[AG001]` on the line a finding is reported on.

    h = rnn(x, h)  # autograd-lint: ignore[AG001]
    h = rnn(x, h)  # autograd-lint: ignore[AG001, AG002]
    h = rnn(x, h)  # autograd-lint: ignore          (every code)

Only real comments count: a `#` inside a string is not one. Comments are found with
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
EVERY_CODE = frozenset({"*"})


def filter_suppressed(findings: Iterable[Finding], source: str) -> list[Finding]:
    findings = list(findings)
    if not findings:
        return findings
    # Tokenizing the file to tell comments from strings takes ~50 ms for 5,000 lines,
    # on every keystroke; it is needed only when a directive sits on a finding's line.
    directive_lines = {source.count("\n", 0, m.start()) + 1 for m in _DIRECTIVE.finditer(source)}
    if directive_lines.isdisjoint(f.span.start.line for f in findings):
        return findings
    suppressed = suppressions(source)
    return [f for f in findings if not _is_suppressed(f, suppressed)]


def _is_suppressed(finding: Finding, suppressed: dict[int, frozenset[str]]) -> bool:
    codes = suppressed.get(finding.span.start.line)
    return codes is not None and (codes is EVERY_CODE or finding.code.upper() in codes)


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

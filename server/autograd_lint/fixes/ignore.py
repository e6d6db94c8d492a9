"""The fix every finding gets: a suppression comment on the line it is reported on.

`x()  # note` becomes `x()  # note  # autograd-lint: ignore[AG001]`, and an existing
`# autograd-lint: ignore[AG002]` on the line grows to `ignore[AG002, AG001]`.
"""

from __future__ import annotations

import io
import re
import tokenize

from ..analysis.model import Finding, Span
from .model import Fix, TextEdit
from .text import split_lines

_DIRECTIVE = re.compile(r"(#\s*autograd-lint\s*:\s*ignore\s*\[)([^\]]*)(\])", re.IGNORECASE)


def ignore_fix(source: str, finding: Finding) -> Fix | None:
    line = finding.span.start.line
    comment, ends_here = _line_comment(source, line)
    if not ends_here:
        # The line ends inside a string or with a backslash: a comment cannot go there.
        return None
    text = split_lines(source)[line - 1].rstrip("\r\n")
    title = f"Ignore {finding.code} on this line"
    if comment is not None:
        start, comment_text = comment
        match = _DIRECTIVE.search(comment_text)
        if match:
            codes = [c.strip() for c in match.group(2).split(",") if c.strip()]
            if finding.code.upper() in (c.upper() for c in codes):
                return None
            codes_text = ", ".join([*codes, finding.code])
            begin = start + match.start(2)
            span = Span.of(line, begin, line, start + match.end(2))
            return Fix(title, finding.code, (TextEdit(span, codes_text),), False, strategy="ignore")
    end = len(text.rstrip())
    directive = f"  # autograd-lint: ignore[{finding.code}]"
    edit = TextEdit(Span.of(line, end, line, len(text)), directive)
    return Fix(title, finding.code, (edit,), False, strategy="ignore")


def _line_comment(source: str, line: int) -> tuple[tuple[int, str] | None, bool]:
    """(column and text of the comment on `line`, whether the line ends as a line of code)."""
    comment = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.start[0] > line:
                break
            if token.type == tokenize.COMMENT and token.start[0] == line:
                comment = (token.start[1], token.string)
            if token.type in (tokenize.NEWLINE, tokenize.NL) and token.start[0] == line:
                return comment, True
            if token.type == tokenize.ENDMARKER:
                return comment, token.start[0] == line or token.start[0] == line + 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return comment, False

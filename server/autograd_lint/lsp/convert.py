"""Findings to LSP diagnostics, and code-point columns to the negotiated position encoding."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.uris import from_fs_path

from ..analysis.model import Finding, Position, Severity, Span
from ..rules import RULES

SOURCE = "autograd-lint"
SUPPORTED_ENCODINGS = (
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf32,
)

_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def choose_position_encoding(offered: Sequence[str] | None) -> types.PositionEncodingKind:
    """UTF-16 whenever the client accepts it (every client must); otherwise the first of
    the client's encodings that we support."""
    if not offered or types.PositionEncodingKind.Utf16 in offered:
        return types.PositionEncodingKind.Utf16
    for encoding in offered:
        if encoding in SUPPORTED_ENCODINGS:
            return types.PositionEncodingKind(encoding)
    return types.PositionEncodingKind.Utf16


def code_units(text: str, encoding: str) -> int:
    """Length of `text` in the code units of `encoding`."""
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))  # lone surrogates from junk input
    # Characters outside the basic multilingual plane take two UTF-16 units.
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def code_points(text: str, units: int, encoding: str) -> int:
    """The code-point column of the `units`-th code unit of `text` (clamped to the line)."""
    if encoding == types.PositionEncodingKind.Utf32:
        return max(0, min(units, len(text)))
    seen = 0
    for column, char in enumerate(text):
        if seen >= units:
            return column
        seen += code_units(char, encoding)
    return len(text)


class LineIndex:
    """The lines of one document version, for converting finding spans."""

    def __init__(self, lines: Sequence[str], encoding: str):
        self.lines = lines
        self.encoding = encoding

    def to_client(self, position: Position) -> types.Position:
        line = position.line - 1
        if line < 0:
            return types.Position(line=0, character=0)
        if line >= len(self.lines):
            return types.Position(line=len(self.lines), character=0)
        text = self.lines[line].rstrip("\r\n")
        column = min(max(position.column, 0), len(text))
        return types.Position(line=line, character=code_units(text[:column], self.encoding))

    def range(self, span: Span) -> types.Range:
        return types.Range(start=self.to_client(span.start), end=self.to_client(span.end))

    def texts(self, finding: Finding) -> tuple[str, ...]:
        """The text of every line a finding's diagnostic points into."""
        spans = [finding.span, *(step.span for step in finding.evidence)]
        numbers = sorted({n for span in spans for n in (span.start.line, span.end.line)})
        return tuple(self.lines[n - 1] if 0 < n <= len(self.lines) else "" for n in numbers)

    def from_client(self, position: types.Position) -> Position:
        """The finding-model position (1-based line, code-point column) of a client one."""
        line = position.line
        if line >= len(self.lines):
            return Position(line + 1, 0)
        text = self.lines[line].rstrip("\r\n")
        return Position(line + 1, code_points(text, position.character, self.encoding))


def to_diagnostic(
    finding: Finding,
    index: int,
    lines: LineIndex,
    uri: str,
    *,
    related_information: bool,
) -> types.Diagnostic:
    """One diagnostic; the evidence chain becomes relatedInformation, or extra message
    lines for clients that cannot show related information."""
    message = finding.message
    related = None
    if finding.evidence:
        if related_information:
            related = [
                types.DiagnosticRelatedInformation(
                    location=types.Location(
                        uri=_step_uri(step.path, finding.path, uri),
                        range=lines.range(step.span),
                    ),
                    message=step.message,
                )
                for step in finding.evidence
            ]
        else:
            message += "".join(
                f"\n  line {step.span.start.line}: {step.message}" for step in finding.evidence
            )
    rule = RULES.get(finding.code)
    return types.Diagnostic(
        range=lines.range(finding.span),
        message=message,
        severity=_SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=rule.docs_url) if rule else None,
        source=SOURCE,
        related_information=related,
        # What code actions will need to find the finding again without re-deriving it.
        data={"index": index, "code": finding.code, "kind": finding.kind},
    )


def _step_uri(step_path: str | None, finding_path: str, document_uri: str) -> str:
    if not step_path or step_path == finding_path:
        return document_uri
    return from_fs_path(step_path) or document_uri

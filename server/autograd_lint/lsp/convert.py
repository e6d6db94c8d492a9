"""Findings to LSP diagnostics, and code-point columns to the negotiated position encoding."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from lsprotocol import types
from pygls.uris import from_fs_path

from ..analysis.model import Finding, Position, Severity, Span, Step
from ..explain import evidence_to_show
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
# Shown as a hint in the editor while they keep their default, information severity:
# `loss.data.mean()` logged by a correct training loop is a style point, not a bug. A
# hint is greyed dots, no squiggle and no Problems row; the command line still reports it.
EDITOR_HINTS = frozenset({("AG006", "read")})


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
        return self.texts_at(line_numbers(finding))

    def texts_at(self, numbers: tuple[int, ...]) -> tuple[str, ...]:
        lines = self.lines
        return tuple(lines[n - 1] if 0 < n <= len(lines) else "" for n in numbers)

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
    other_file: Callable[[str], LineIndex | None] = lambda path: None,
) -> types.Diagnostic:
    """One diagnostic; the evidence chain becomes relatedInformation, or extra message
    lines for clients that cannot show related information. `other_file(path)` gives the
    lines of a file other than this one that a step points into (None: unknown)."""
    message = finding.message
    related = None
    evidence = evidence_to_show(finding)
    if evidence:
        if related_information:
            related = [
                types.DiagnosticRelatedInformation(
                    location=_step_location(step, finding, lines, uri, other_file),
                    message=step.message,
                )
                for step in evidence
            ]
        else:
            message += "".join(
                f"\n  {_step_where(step, finding)}: {step.message}" for step in evidence
            )
    rule = RULES.get(finding.code)
    return types.Diagnostic(
        range=lines.range(finding.span),
        message=message,
        severity=_severity(finding),
        code=finding.code,
        code_description=types.CodeDescription(href=rule.docs_url) if rule else None,
        source=SOURCE,
        related_information=related,
        # What code actions will need to find the finding again without re-deriving it.
        data={"index": index, "code": finding.code, "kind": finding.kind},
    )


def _severity(finding: Finding) -> types.DiagnosticSeverity:
    if finding.severity is Severity.INFO and (finding.code, finding.kind) in EDITOR_HINTS:
        return types.DiagnosticSeverity.Hint
    return _SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Warning)


def line_numbers(finding: Finding) -> tuple[int, ...]:
    """The lines of this file a finding's diagnostic points into, in order."""
    spans = [finding.span]
    spans += [step.span for step in finding.evidence if not in_other_file(step, finding)]
    return tuple(sorted({n for span in spans for n in (span.start.line, span.end.line)}))


def in_other_file(step: Step, finding: Finding) -> bool:
    return bool(step.path) and step.path != finding.path


def _step_where(step: Step, finding: Finding) -> str:
    where = f"line {step.span.start.line}"
    return f"{where} of {os.path.basename(step.path)}" if in_other_file(step, finding) else where


def _step_location(step, finding, lines, uri, other_file) -> types.Location:
    if not in_other_file(step, finding):
        return types.Location(uri=uri, range=lines.range(step.span))
    other = other_file(step.path)
    if other is None:  # columns as code points: right unless the line has wide characters
        start, end = step.span.start, step.span.end
        span_range = types.Range(
            start=types.Position(line=max(start.line - 1, 0), character=start.column),
            end=types.Position(line=max(end.line - 1, 0), character=end.column),
        )
    else:
        span_range = other.range(step.span)
    return types.Location(uri=from_fs_path(step.path) or uri, range=span_range)

"""What the server sends for a document's findings, kept cheap across keystrokes.

An edit inside one function leaves the other findings as they were, so each finding's
diagnostic, and each diagnostic's JSON, is kept from the last publish and reused while it
still says the same thing.
"""

from __future__ import annotations

import json

from lsprotocol import types

from .convert import line_numbers, to_diagnostic
from .documents import Document


def convert(
    document: Document, findings, lines, *, related_information: bool, other_file
) -> list[types.Diagnostic]:
    """The findings as diagnostics, reusing the last run's where the finding is the same
    (most often the very object) and so is the text of its lines, which decides the
    columns. Looked up by place, not by the finding's own hash: hashing ~100 findings with
    their evidence took longer than the rest of this."""
    previous, converted, diagnostics = document.converted, {}, []
    for index, finding in enumerate(findings):
        key = (index, finding.code, finding.span)
        kept = previous.get(key)
        same = kept is not None and kept[0] is finding  # and so are its line numbers
        numbers = kept[1] if same else line_numbers(finding)
        texts = lines.texts_at(numbers)
        if (same or (kept is not None and kept[0] == finding)) and kept[2] == texts:
            diagnostic = kept[3]
        else:
            diagnostic = to_diagnostic(
                finding,
                index,
                lines,
                document.uri,
                related_information=related_information,
                other_file=other_file,
            )
        converted[key] = (finding, numbers, texts, diagnostic)
        diagnostics.append(diagnostic)
    document.converted = converted
    return diagnostics


def params_json(document: Document, diagnostics, to_json) -> str:
    """textDocument/publishDiagnostics' params as JSON text. Each diagnostic's JSON is kept
    from the last publish (serializing ~100 diagnostics with their evidence took longer
    than analysing the edit)."""
    previous, current, parts = document.diagnostics_json, {}, []
    for diagnostic in diagnostics:
        text = previous.get(id(diagnostic), (None, ""))
        if text[0] is not diagnostic:
            text = (diagnostic, to_json(diagnostic))
        current[id(diagnostic)] = text
        parts.append(text[1])
    document.diagnostics_json = current
    version = "" if document.version is None else f',"version":{int(document.version)}'
    return f'{{"uri":{json.dumps(document.uri)}{version},"diagnostics":[{",".join(parts)}]}}'

"""Diagnostics over stdio for the three editors: open, edit in steps, update, clear."""

from __future__ import annotations

import asyncio

from autograd_lint.analysis import analyze
from autograd_lint.rules import RULES
from lsp_helpers import CLIENTS, SAMPLES, Editor, start, uses_pull, wait_for_publish
from lsprotocol import types
from pytest_lsp import client_capabilities

BROKEN = "def f(:\n    pass\n"
FIXED = "def f():\n    pass\n"


async def test_syntax_error_appears_updates_and_clears(client):
    doc = Editor(client, client.workspace / "broken.py", BROKEN)
    (diagnostic,) = await doc.diagnostics()
    assert diagnostic.code == "AG000"
    assert diagnostic.source == "autograd-lint"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start.line == 0
    assert diagnostic.code_description.href == RULES["AG000"].docs_url

    # Type the missing ")" one step at a time, as an editor sends it.
    doc.edit(0, 6, 6, ")")
    assert await doc.diagnostics() == []
    doc.edit(1, 4, 8, "retur")  # unfinished but still valid: `retur` is a name
    assert await doc.diagnostics() == []
    doc.edit(0, 6, 7, "")  # break it again
    assert [d.code for d in await doc.diagnostics()] == ["AG000"]

    published = len(client.published)
    doc.close()
    if not uses_pull(client):
        # Push clients only learn about a closed document from an empty publish.
        assert await wait_for_publish(client, doc.uri, None, after=published) == []


async def test_non_python_documents_are_not_checked(client):
    doc = Editor(client, client.workspace / "notes.txt", BROKEN, language_id="plaintext")
    python = Editor(client, client.workspace / "code.py", BROKEN)
    assert [d.code for d in await python.diagnostics()] == ["AG000"]
    if uses_pull(client):
        assert await doc.diagnostics() == []
    else:
        assert all(p.uri != doc.uri for p in client.published)


async def test_a_py_file_without_a_language_id_is_checked(client):
    # A language the client names is taken at its word, whatever the file is called.
    markdown = Editor(client, client.workspace / "notes.py", BROKEN, language_id="markdown")
    # Neovim without filetype detection sends "" (other clients "plaintext") for a .py file.
    for number, language in enumerate(("", "plaintext")):
        doc = Editor(client, client.workspace / f"bare_{number}.py", BROKEN, language_id=language)
        assert [d.code for d in await doc.diagnostics()] == ["AG000"]
    if uses_pull(client):
        assert await markdown.diagnostics() == []
    else:
        assert all(p.uri != markdown.uri for p in client.published)


async def test_only_the_latest_version_is_published(client):
    doc = Editor(client, client.workspace / "fast.py", FIXED)
    await doc.diagnostics()
    # 21 edits in a row, faster than the debounce: breaking and fixing in turn.
    for step in range(21):
        if step % 2 == 0:
            doc.edit(0, 6, 7, "")
        else:
            doc.edit(0, 6, 6, ")")
    final = await doc.diagnostics()
    assert [d.code for d in final] == ["AG000"]  # the 21st edit broke it
    if not uses_pull(client):
        versions = [p.version for p in client.published if p.uri == doc.uri]
        assert versions == sorted(set(versions)), "published out of order or twice"
        assert versions[-1] == doc.version
        await asyncio.sleep(0.3)  # nothing stale may arrive after the latest version
        assert [p.version for p in client.published if p.uri == doc.uri][-1] == doc.version


async def test_sample_reports_ag001_with_its_evidence(client):
    path = SAMPLES / "ag001_rnn_hidden_buggy.py"
    text = path.read_text(encoding="utf-8")
    expected = [f for f in analyze(text, str(path)) if f.code == "AG001"]
    assert expected, "the engine finds the sample's AG001"
    doc = Editor(client, client.workspace / path.name, text)
    diagnostics = [d for d in await doc.diagnostics() if d.code == "AG001"]
    assert [d.range.start.line + 1 for d in diagnostics] == [f.span.start.line for f in expected]
    diagnostic, finding = diagnostics[0], expected[0]
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.data["code"] == "AG001"
    steps = finding.evidence
    if client.editor == "emacs":  # no relatedInformation: the chain is in the message
        assert diagnostic.related_information is None
        for step in steps:
            assert f"line {step.span.start.line}: {step.message}" in diagnostic.message
    else:
        related = diagnostic.related_information
        assert [r.message for r in related] == [s.message for s in steps]
        assert [r.location.range.start.line + 1 for r in related] == [
            s.span.start.line for s in steps
        ]
        assert all(r.location.uri == doc.uri for r in related)


async def test_fixing_the_sample_clears_ag001(client):
    buggy = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    fixed = (SAMPLES / "ag001_rnn_hidden_fixed.py").read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "train.py", buggy)
    assert any(d.code == "AG001" for d in await doc.diagnostics())
    doc.replace_all(fixed)
    assert not any(d.code == "AG001" for d in await doc.diagnostics())


async def test_pull_reports_unchanged_until_the_diagnostics_change(bare_client):
    await start(bare_client, client_capabilities(CLIENTS["neovim"]), bare_client.workspace)
    doc = Editor(bare_client, bare_client.workspace / "pull.py", BROKEN)

    async def pull(previous: str | None):
        return await bare_client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(doc.uri), previous_result_id=previous
            )
        )

    first = await pull(None)
    assert first.kind == "full" and [d.code for d in first.items] == ["AG000"]
    assert (await pull(first.result_id)).kind == "unchanged"
    doc.edit(1, 8, 8, "  # a comment")  # a new version, the same diagnostics
    again = await pull(first.result_id)
    assert again.kind == "unchanged" and again.result_id == first.result_id
    doc.edit(0, 6, 6, ")")  # fixed: the report changes
    fixed = await pull(first.result_id)
    assert fixed.kind == "full" and list(fixed.items) == []
    assert fixed.result_id != first.result_id

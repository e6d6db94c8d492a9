"""Hover over stdio: the story on the flagged backward() and on every evidence step."""

from __future__ import annotations

from autograd_lint.analysis import Role, analyze
from lsp_helpers import SAMPLES, Editor
from lsprotocol import types

SAMPLE = SAMPLES / "ag001_rnn_hidden_buggy.py"


def _finding(text: str):
    (finding,) = [f for f in analyze(text, str(SAMPLE)) if f.code == "AG001"]
    return finding


async def test_hover_on_the_flagged_backward_tells_the_story(client):
    text = SAMPLE.read_text(encoding="utf-8")
    finding = _finding(text)
    doc = Editor(client, client.workspace / "train.py", text)
    await doc.diagnostics()
    line, column = finding.span.start.line - 1, finding.span.start.column
    hover = await doc.hover(line, column + 2)
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    story = hover.contents.value
    carried = finding.steps(Role.CARRIED)[0]
    assert "**AG001**" in story
    assert "`hidden` still holds the autograd graph" in story
    assert f"line {carried.span.start.line}" in story
    fails = finding.steps(Role.FAILS)[0]
    assert f"**fails, line {fails.span.start.line}: {fails.message}** (here)" in story
    assert hover.range.start == types.Position(line, column)


async def test_hover_on_each_evidence_step_marks_that_step(client):
    text = SAMPLE.read_text(encoding="utf-8")
    finding = _finding(text)
    doc = Editor(client, client.workspace / "train.py", text)
    await doc.diagnostics()
    for step in finding.evidence:
        if step.span.contains(finding.span.start.line, finding.span.start.column):
            continue  # the backward itself: covered above
        hover = await doc.hover(step.span.start.line - 1, step.span.start.column)
        assert hover is not None, step
        assert f"{step.message}** (here)" in hover.contents.value
        assert hover.range.start.line == step.span.start.line - 1


async def test_no_hover_on_a_clean_backward_or_plain_code(client):
    fixed = (SAMPLES / "ag001_rnn_hidden_fixed.py").read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "fixed.py", fixed)
    assert not [d for d in await doc.diagnostics() if d.code == "AG001"]
    backward_line = next(i for i, line in enumerate(doc.lines) if "loss.backward()" in line)
    column = doc.lines[backward_line].index("backward")
    assert await doc.hover(backward_line, column) is None
    assert await doc.hover(0, 0) is None


async def test_hover_follows_edits(client):
    text = SAMPLE.read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "train.py", text)
    await doc.diagnostics()
    finding = _finding(text)
    line = finding.span.start.line - 1
    # Two blank lines above the backward: the finding (and its hover) moves down by two.
    doc.edit(line, 0, 0, "\n\n")
    await doc.diagnostics()
    column = finding.span.start.column + 2
    assert await doc.hover(line, column) is None
    hover = await doc.hover(line + 2, column)
    assert hover is not None and "**AG001**" in hover.contents.value


async def test_hover_outside_the_document_and_on_unknown_documents(client):
    doc = Editor(client, client.workspace / "small.py", "x = 1\n")
    await doc.diagnostics()
    far = types.HoverParams(
        text_document=types.TextDocumentIdentifier(doc.uri),
        position=types.Position(line=500, character=900),
    )
    assert await client.text_document_hover_async(far) is None
    unknown = types.HoverParams(
        text_document=types.TextDocumentIdentifier((client.workspace / "nope.py").as_uri()),
        position=types.Position(line=0, character=0),
    )
    assert await client.text_document_hover_async(unknown) is None

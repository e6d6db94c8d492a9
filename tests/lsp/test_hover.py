"""Hover over stdio: the story on the flagged backward() and on every evidence step."""

from __future__ import annotations

from autograd_lint.analysis import Role, analyze
from lsp_helpers import SAMPLES, Editor
from lsprotocol import types

SAMPLE = SAMPLES / "ag001_rnn_hidden_buggy.py"


def _finding(text: str):
    (finding,) = [f for f in analyze(text, str(SAMPLE)) if f.code == "AG001"]
    return finding


async def test_hover_on_the_flagged_backward_leads_with_why_and_the_fix(client):
    text = SAMPLE.read_text(encoding="utf-8")
    finding = _finding(text)
    doc = Editor(client, client.workspace / "train.py", text)
    await doc.diagnostics()
    line, column = finding.span.start.line - 1, finding.span.start.column
    hover = await doc.hover(line, column + 2)
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    story = hover.contents.value
    summary, _, details = story.partition("\n\n---\n\n")
    # The summary fits a small hover box below VS Code's message and evidence: the quick
    # fix first, then the rule and one line of why.
    fix_line, why_line = (line.rstrip() for line in summary.splitlines())
    assert fix_line == "**Fix:** Detach `hidden` at the start of each iteration (Quick Fix)"
    assert why_line.startswith("**AG001**")
    assert "`hidden` carries the previous iteration's graph" in why_line
    # What the client's own diagnostic hover shows (the message, the evidence as related
    # information) is not repeated.
    assert finding.message not in story
    assert not [step.message for step in finding.evidence if step.message in story]
    # The full story is below the rule.
    carried = finding.steps(Role.CARRIED)[0]
    assert "`hidden` still holds the autograd graph" in details
    assert f"line {carried.span.start.line}" in details
    assert "`hidden = hidden.detach()`" in details and "Why not `retain_graph=True`?" in details
    assert hover.range.start == types.Position(line, column)


async def test_hover_on_each_evidence_step_names_that_step(client):
    text = SAMPLE.read_text(encoding="utf-8")
    finding = _finding(text)
    doc = Editor(client, client.workspace / "train.py", text)
    await doc.diagnostics()
    for step in finding.evidence:
        if step.span.contains(finding.span.start.line, finding.span.start.column):
            continue  # the backward itself: covered above
        hover = await doc.hover(step.span.start.line - 1, step.span.start.column)
        assert hover is not None, step
        summary = hover.contents.value.partition("\n\n---\n\n")[0]
        wanted = f"*This line:* {step.message} (the finding is at line {finding.span.start.line})"
        assert wanted in summary
        assert hover.range.start.line == step.span.start.line - 1


async def test_hover_on_an_inplace_op_does_not_call_it_the_backward(client):
    # AG007 is reported on the in-place op, and its failing step is the backward lines
    # later: the hover on the op is the finding's own, with no "This line:" of that step.
    sample = SAMPLES / "ag007_clamp_probs_buggy.py"
    text = sample.read_text(encoding="utf-8")
    (finding,) = [f for f in analyze(text, str(sample)) if f.code == "AG007"]
    doc = Editor(client, client.workspace / "clamp.py", text)
    await doc.diagnostics()
    hover = await doc.hover(finding.span.start.line - 1, finding.span.start.column + 1)
    summary = hover.contents.value.partition("\n\n---\n\n")[0]
    assert summary.startswith("**Fix:**")
    assert "*This line:*" not in summary


async def test_gan_hover_leads_with_detaching_the_fake_batch(client):
    # Summing the discriminator's and the generator's losses would train each on the
    # other's objective: the first advice for a GAN's shared `fake` is to detach it.
    gan = SAMPLES / "ag002_gan_fake_buggy.py"
    text = gan.read_text(encoding="utf-8")
    (finding,) = [f for f in analyze(text, str(gan)) if f.code == "AG002"]
    doc = Editor(client, client.workspace / "gan.py", text)
    await doc.diagnostics()
    hover = await doc.hover(finding.span.start.line - 1, finding.span.start.column + 1)
    summary = hover.contents.value.partition("\n\n---\n\n")[0]
    fix_line = next(line for line in summary.splitlines() if line.startswith("**Fix:**"))
    assert "`discriminator(fake.detach())`" in fix_line
    assert "sum" not in fix_line.lower()


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


def test_a_long_file_gets_the_rules_advice_instead_of_parsing_for_the_fix():
    from autograd_lint.lsp.hover import FIX_TITLE_MAX_LINES, hover_markdown

    text = SAMPLE.read_text(encoding="utf-8")
    filler = "".join(
        f"def helper_{i}(x):\n    return x\n\n" for i in range(FIX_TITLE_MAX_LINES // 3 + 1)
    )
    for source in (text, filler + text):
        (finding,) = [f for f in analyze(source, "train.py") if f.code == "AG001"]
        fix_line = next(
            line
            for line in hover_markdown(
                [(finding, None, finding.span)], source, {"train.py"}
            ).splitlines()
            if line.startswith("**Fix:**")
        )
        if source is text:
            assert (
                fix_line.rstrip()
                == "**Fix:** Detach `hidden` at the start of each iteration (Quick Fix)"
            )
        else:
            assert "`hidden = hidden.detach()`" in fix_line and "(Quick Fix)" not in fix_line

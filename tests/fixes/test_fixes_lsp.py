"""Code actions over stdio, as VS Code, Neovim and Emacs ask for them: the quick fix and
the ignore comment for the diagnostic under the cursor, fix-all, lazy resolve where the
client supports it, `documentChanges` or `changes` as the client accepts."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from autograd_lint.fixes.lsp_actions import FIX_ALL_KIND
from lsp_helpers import CLIENTS, CONFIG, SAMPLES, Editor, RecordingClient, start
from lsprotocol import types
from pytest_lsp import client_capabilities

SAMPLE = SAMPLES / "ag001_rnn_hidden_buggy.py"


@pytest_lsp.fixture(config=CONFIG, params=sorted(CLIENTS))
async def client(lsp_client: RecordingClient, request, tmp_path: Path):
    lsp_client.workspace = tmp_path
    await start(lsp_client, client_capabilities(CLIENTS[request.param]), tmp_path)
    yield
    await lsp_client.shutdown_session()


def apply(text: str, edit: types.WorkspaceEdit, uri: str, encoding: str) -> str:
    if edit.document_changes:
        (change,) = edit.document_changes
        assert change.text_document.uri == uri
        edits = change.edits
    else:
        edits = edit.changes[uri]
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        for column, char in enumerate(line):
            if units >= position.character:
                return before + column
            units += (
                len(char.encode("utf-16-le")) // 2
                if encoding == "utf-16"
                else (len(char.encode("utf-8")) if encoding == "utf-8" else 1)
            )
        return before + len(line)

    for text_edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        start, end = offset(text_edit.range.start), offset(text_edit.range.end)
        text = text[:start] + text_edit.new_text + text[end:]
    return text


async def actions_at(client, doc: Editor, line: int, only=None) -> list[types.CodeAction]:
    where = types.Position(line=line, character=4)
    diagnostics = await doc.diagnostics()
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(doc.uri),
            range=types.Range(start=where, end=where),
            context=types.CodeActionContext(
                diagnostics=[d for d in diagnostics if d.range.start.line == line], only=only
            ),
        )
    )
    return list(result or [])


async def edit_of(client, action: types.CodeAction) -> types.WorkspaceEdit:
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    assert action.edit is not None
    return action.edit


async def test_quick_fix_for_the_diagnostic_under_the_cursor(client):
    text = SAMPLE.read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "train.py", text)
    (diagnostic,) = [d for d in await doc.diagnostics() if d.code == "AG001"]
    line = diagnostic.range.start.line
    actions = await actions_at(client, doc, line)
    quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert quick[0].title == "Detach `hidden` at the start of each iteration"
    assert quick[0].is_preferred
    assert quick[-1].title == "Ignore AG001 on this line"
    others = [a.kind for a in actions if a.kind != types.CodeActionKind.QuickFix]
    # Fix-all is listed where it costs nothing until chosen (clients that resolve).
    assert others == ([FIX_ALL_KIND] if quick[0].edit is None else [])

    fixed = apply(text, await edit_of(client, quick[0]), doc.uri, client.position_encoding)
    assert "    hidden = hidden.detach()\n    inputs = corpus" in fixed
    doc.replace_all(fixed)
    assert not [d for d in await doc.diagnostics() if d.code == "AG001"]


async def test_ignore_comment_keeps_the_existing_one(client):
    text = SAMPLE.read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "train.py", text)
    (diagnostic,) = [d for d in await doc.diagnostics() if d.code == "AG001"]
    actions = await actions_at(client, doc, diagnostic.range.start.line)
    ignore = next(a for a in actions if a.title == "Ignore AG001 on this line")
    fixed = apply(text, await edit_of(client, ignore), doc.uri, client.position_encoding)
    assert "loss.backward()  # expect: AG001  # autograd-lint: ignore[AG001]\n" in fixed
    doc.replace_all(fixed)
    assert not [d for d in await doc.diagnostics() if d.code == "AG001"]


async def test_fix_all_on_request(client):
    text = (SAMPLES / "ag002_gan_fake_buggy.py").read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "gan.py", text)
    await doc.diagnostics()
    (action,) = await actions_at(client, doc, 0, only=["source.fixAll"])
    assert action.kind == FIX_ALL_KIND
    fixed = apply(text, await edit_of(client, action), doc.uri, client.position_encoding)
    assert "discriminator(fake.detach())" in fixed
    doc.replace_all(fixed)
    assert not [d for d in await doc.diagnostics() if d.code in ("AG001", "AG002")]


async def test_edit_shape_follows_the_client(client):
    text = SAMPLE.read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "train.py", text)
    (diagnostic,) = [d for d in await doc.diagnostics() if d.code == "AG001"]
    action = (await actions_at(client, doc, diagnostic.range.start.line))[0]
    caps = client.capabilities
    resolves = "edit" in (
        getattr(
            getattr(caps.text_document.code_action, "resolve_support", None), "properties", None
        )
        or []
    )
    assert (action.edit is None) == resolves
    edit = await edit_of(client, action)
    versioned = bool(
        caps.workspace
        and caps.workspace.workspace_edit
        and caps.workspace.workspace_edit.document_changes
    )
    assert (edit.document_changes is not None) == versioned
    assert (edit.changes is not None) == (not versioned)

"""The server in a Python that cannot import libcst (the VS Code extension's pure-Python
bundle run with the user's interpreter, client/scripts/bundle-libs.mjs): diagnostics and
hovers as usual, the light bulb offers only "Ignore AG00x on this line", and fix-all is
empty rather than an error.

libcst is made unimportable the way a missing package is (None in sys.modules raises
ModuleNotFoundError naming it), before the server imports anything."""

from __future__ import annotations

import sys

import pytest_lsp
from lsp_helpers import SAMPLES, Editor, make_client, start
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

WITHOUT_LIBCST = (
    "import runpy, sys; sys.modules['libcst'] = None; sys.argv = ['autograd_lint.lsp']; "
    "runpy.run_module('autograd_lint.lsp', run_name='__main__')"
)
CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-c", WITHOUT_LIBCST], client_factory=make_client
)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, tmp_path):
    lsp_client.workspace = tmp_path
    await start(lsp_client, client_capabilities("visual-studio-code"), tmp_path)
    yield
    await lsp_client.shutdown_session()


def _actions(client, doc: Editor, where: types.Range, only=None):
    return client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(doc.uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )


async def test_squiggles_hover_and_ignore_only_without_libcst(client):
    text = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    doc = Editor(client, client.workspace / "train.py", text)
    found = [d for d in await doc.diagnostics() if d.code == "AG001"]
    assert found, "diagnostics need no libcst"
    line = found[0].range.start.line
    column = found[0].range.start.character
    hover = await doc.hover(line, column)
    assert hover is not None and "detach" in hover.contents.value

    actions = await _actions(client, doc, found[0].range)
    titles = [a.title for a in actions or []]
    assert titles == ["Ignore AG001 on this line"], titles
    resolved = await client.code_action_resolve_async(actions[0])
    edits = resolved.edit.document_changes[0].edits
    assert [e.new_text for e in edits] == ["  # autograd-lint: ignore[AG001]"]

    # Fix-all has nothing it could apply: not offered, even when asked for by kind.
    asked = await _actions(client, doc, found[0].range, only=["source.fixAll.autograd-lint"])
    assert not asked

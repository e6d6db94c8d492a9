"""What the server negotiates with each editor's capability set."""

from __future__ import annotations

import attrs
import pytest
from autograd_lint.analysis import analyze
from autograd_lint.lsp.features import STATUS_COMMAND
from lsp_helpers import CLIENTS, SAMPLES, Editor, start
from lsprotocol import types
from pytest_lsp import client_capabilities

# (editor, position encoding, diagnostics model, relatedInformation)
EXPECTED = {
    "vscode": ("utf-16", "push", True),  # offers no encodings: UTF-16 by default
    "neovim": ("utf-16", "pull", True),  # offers utf-8 first, but utf-16 too
    "emacs": ("utf-16", "push", False),  # offers utf-32 first, but utf-16 too
}


async def status(client, **arguments) -> dict:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=STATUS_COMMAND, arguments=[arguments])
    )


@pytest.mark.parametrize("editor", sorted(CLIENTS))
async def test_negotiation_per_editor(bare_client, editor):
    result = await start(bare_client, client_capabilities(CLIENTS[editor]), bare_client.workspace)
    encoding, model, related = EXPECTED[editor]
    capabilities = result.capabilities
    assert capabilities.position_encoding == encoding
    assert capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert capabilities.text_document_sync.open_close
    assert capabilities.hover_provider
    assert capabilities.diagnostic_provider.identifier == "autograd-lint"
    assert STATUS_COMMAND in capabilities.execute_command_provider.commands
    state = await status(bare_client)
    assert (state["diagnostics"], state["relatedInformation"]) == (model, related)
    watcher_registered = any(
        r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in bare_client.registrations
    )
    # Neovim 0.11 cannot register file watchers dynamically; VS Code and eglot can.
    assert watcher_registered == (editor != "neovim")


def _offering(encodings: list[str]) -> types.ClientCapabilities:
    base = client_capabilities(CLIENTS["neovim"])
    return attrs.evolve(base, general=types.GeneralClientCapabilities(position_encodings=encodings))


@pytest.mark.parametrize(
    "offered, chosen",
    [
        (["utf-8"], "utf-8"),
        (["utf-32"], "utf-32"),
        (["utf-32", "utf-8"], "utf-32"),
        (["utf-8", "utf-32", "utf-16"], "utf-16"),
        (["x-unknown"], "utf-16"),
    ],
)
async def test_position_encoding_choice(bare_client, offered, chosen):
    result = await start(bare_client, _offering(offered), bare_client.workspace)
    assert result.capabilities.position_encoding == chosen


# A line with CJK (one UTF-16 unit, three UTF-8 bytes) and an emoji (two UTF-16 units,
# four UTF-8 bytes) before the failing backward().
WIDE_PREFIX = '_ = "日本😀"; '


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
async def test_squiggle_after_wide_characters_is_exact(bare_client, encoding):
    await start(bare_client, _offering([encoding]), bare_client.workspace)
    text = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    text = text.replace("    loss.backward()", f"    {WIDE_PREFIX}loss.backward()")
    (finding,) = [f for f in analyze(text, "wide.py") if f.code == "AG001"]
    line = text.split("\n")[finding.span.start.line - 1]
    assert WIDE_PREFIX in line

    doc = Editor(bare_client, bare_client.workspace / "wide.py", text)
    (diagnostic,) = [d for d in await doc.diagnostics() if d.code == "AG001"]
    start_units = len(line[: finding.span.start.column].encode(_codec(encoding))) // _width(
        encoding
    )
    assert diagnostic.range.start == types.Position(finding.span.start.line - 1, start_units)
    # The squiggle starts on the code after the wide characters, not inside them.
    assert line[finding.span.start.column :].lstrip().startswith(("loss", "backward"))

    hover = await doc.hover(finding.span.start.line - 1, finding.span.start.column + 1)
    assert hover is not None and "AG001" in hover.contents.value
    assert hover.range.start == diagnostic.range.start


def _codec(encoding: str) -> str:
    return {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[encoding]


def _width(encoding: str) -> int:
    return {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]

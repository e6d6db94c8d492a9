"""Nothing a client sends may crash the server: junk on the wire, odd URIs, documents
that were never opened, huge and binary documents, an analysis that fails."""

from __future__ import annotations

import json
import textwrap

import pytest
from autograd_lint.lsp.features import STATUS_COMMAND
from lsp_helpers import CLIENTS, SAMPLES, Editor, start, uses_pull, wait_for_publish
from lsprotocol import types
from pytest_lsp import client_capabilities

BROKEN = "def f(:\n    pass\n"


async def still_serving(client) -> None:
    state = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=STATUS_COMMAND, arguments=[])
    )
    assert state["version"]
    doc = Editor(client, client.workspace / "after.py", BROKEN)
    assert [d.code for d in await doc.diagnostics()] == ["AG000"]


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def test_junk_on_the_wire(client):
    stdin = client._server.stdin
    stdin.write(b"this is not a header\r\n\r\n")
    stdin.write(_frame(b"{not json"))
    stdin.write(_frame(bytes(range(256))))
    stdin.write(_frame(b'{"hello": 1}'))
    stdin.write(_frame(b"[]"))
    bad_open = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 1}}
    stdin.write(_frame(json.dumps(bad_open).encode()))
    unknown = {"jsonrpc": "2.0", "method": "autograd-lint/nothing", "params": {}}
    stdin.write(_frame(json.dumps(unknown).encode()))
    await stdin.drain()
    with pytest.raises(Exception, match="nothing"):
        await client.protocol.send_request_async("autograd-lint/nothing", {})
    await still_serving(client)


@pytest.mark.parametrize(
    "uri",
    ["not a uri", "file://", "untitled:Untitled-1", "file:///%zz/odd%.py", "file:///c%3A/w/x.py"],
)
async def test_odd_uris_are_served(client, uri):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=BROKEN
            )
        )
    )
    if uses_pull(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        diagnostics = report.items
    else:
        diagnostics = await wait_for_publish(client, uri, 1)
    assert [d.code for d in diagnostics] == ["AG000"]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri), position=types.Position(0, 0)
        )
    )
    assert hover is None
    await still_serving(client)


async def test_documents_that_were_never_opened(client):
    uri = (client.workspace / "never.py").as_uri()
    identifier = types.TextDocumentIdentifier(uri)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=BROKEN)],
        )
    )
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=identifier))
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=identifier, position=types.Position(3, 3))
    )
    assert hover is None
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=identifier)
    )
    assert list(report.items) == []
    await still_serving(client)


async def test_binary_junk_and_odd_line_breaks_in_a_document(client):
    # A form feed and U+2028 are not line breaks for LSP or Python: the edit on line 2
    # must land on `c = (`, closing it.
    text = "a = 1\x0c\nb = '\u2028'\nc = (\n"
    doc = Editor(client, client.workspace / "odd.py", text)
    assert [d.range.start.line for d in await doc.diagnostics()] == [2]
    doc.lines = text.split("\n")
    doc.edit(2, 5, 5, ")")
    assert await doc.diagnostics() == []

    junk = "".join(chr(c) for c in range(0, 0x800, 3)) + "\x00\udcff\ud83d\n" * 3
    binary = Editor(client, client.workspace / "junk.py", junk)
    assert [d.code for d in await binary.diagnostics()] == ["AG000"]
    # A range past the end of the line and of the document, ends before starts.
    for begin, end in [((0, 0), (0, 10**6)), ((10**6, 5), (10**6, 0)), ((2, 3), (1, 0))]:
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=binary.uri, version=binary.version + 1
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=types.Position(*begin), end=types.Position(*end)),
                        text="x = 1\n",
                    )
                ],
            )
        )
        binary.version += 1
        await binary.diagnostics()
    await still_serving(client)


def _huge_source(min_lines: int) -> tuple[str, int]:
    """The buggy RNN sample as many renamed functions: (source, number of AG001)."""
    sample = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    head, _, loop = sample.partition("model = CharModel()")
    model = head[head.index("class CharModel") :]
    body = textwrap.indent("model = CharModel()" + loop, "    ")
    parts, count = ["import torch\nfrom torch import nn\n"], 0
    while sum(p.count("\n") for p in parts) < min_lines:
        name = f"CharModel{count}"
        parts.append(
            model.replace("CharModel", name)
            + f"\n\ndef train_{count}(corpus, VOCAB, BATCH, HIDDEN, SEQ_LEN, CHUNKS, EMBED):\n"
            + body.replace("CharModel", name)
        )
        count += 1
    return "\n".join(parts), count


async def test_huge_document(bare_client):
    client = bare_client
    await start(client, client_capabilities(CLIENTS["vscode"]), client.workspace)
    text, functions = _huge_source(50_000)
    marked = [i for i, line in enumerate(text.split("\n")) if line.endswith("# expect: AG001")]
    assert len(marked) == functions
    doc = Editor(client, client.workspace / "huge.py", text)
    diagnostics = await doc.diagnostics()
    assert [d.range.start.line for d in diagnostics] == marked
    # Fix the last function (detach before the forward pass): one finding less.
    forward = max(i for i, line in enumerate(doc.lines) if "logits, hidden = model(" in line)
    indent = doc.lines[forward][: -len(doc.lines[forward].lstrip())]
    doc.edit(forward, 0, 0, f"{indent}hidden = hidden.detach()\n")
    assert len(await doc.diagnostics()) == functions - 1
    await still_serving(client)

"""Notebook synchronisation over stdio: a notebook's Python cells analysed as one program,
diagnostics on each cell's URI, hovers, quick fixes and fix-all as edits of cells."""

from __future__ import annotations

import asyncio

import attrs
from lsp_helpers import CLIENTS, TIMEOUT, start, uses_pull
from lsprotocol import types
from pytest_lsp import client_capabilities

SETUP = "import torch\nfrom torch import nn\ncell = nn.RNNCell(4, 8)\n"
STATE = "%matplotlib inline\nhidden = torch.zeros(2, 8)\nfeatures = cell(torch.randn(2, 4))\n"
LOOP = (
    "for step in range(3):\n"
    "    hidden = cell(torch.randn(2, 4), hidden)\n"
    "    loss = hidden.pow(2).mean() + features.sum()\n"
    "    loss.backward()\n"
)


class Notebook:
    def __init__(self, client, path, cells):
        self.client = client
        self.uri = path.as_uri()
        self.version = 1
        self.cells = [
            (kind, f"vscode-notebook-cell:{path}#cell{i}", text)
            for i, (kind, text) in enumerate(cells)
        ]
        client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=self.uri,
                    notebook_type="jupyter-notebook",
                    version=1,
                    cells=[
                        types.NotebookCell(kind=types.NotebookCellKind(k), document=u)
                        for k, u, _ in self.cells
                    ],
                ),
                cell_text_documents=[
                    types.TextDocumentItem(
                        uri=u, language_id="python" if k == 2 else "markdown", version=1, text=t
                    )
                    for k, u, t in self.cells
                ],
            )
        )

    def uri_of(self, index: int) -> str:
        return self.cells[index][1]

    def set_text(self, index: int, text: str) -> None:
        self.version += 1
        kind, uri, _ = self.cells[index]
        self.cells[index] = (kind, uri, text)
        self.client.notebook_document_did_change(
            types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(
                    uri=self.uri, version=self.version
                ),
                change=types.NotebookDocumentChangeEvent(
                    cells=types.NotebookDocumentCellChanges(
                        text_content=[
                            types.NotebookDocumentCellContentChanges(
                                document=types.VersionedTextDocumentIdentifier(
                                    uri=uri, version=self.version
                                ),
                                changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                            )
                        ]
                    )
                ),
            )
        )

    def close(self) -> None:
        self.client.notebook_document_did_close(
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(uri=self.uri),
                cell_text_documents=[types.TextDocumentIdentifier(uri=u) for _, u, _ in self.cells],
            )
        )

    async def diagnostics(self, index: int, predicate=lambda d: True) -> list:
        """The cell's diagnostics once `predicate` holds for them (pulled or published)."""

        async def poll():
            while True:
                if uses_pull(self.client):
                    report = await self.client.text_document_diagnostic_async(
                        types.DocumentDiagnosticParams(
                            text_document=types.TextDocumentIdentifier(self.uri_of(index))
                        )
                    )
                    found = list(report.items)
                else:
                    found = list(self.client.diagnostics.get(self.uri_of(index), None) or [])
                    if self.uri_of(index) not in self.client.diagnostics:
                        found = None
                if found is not None and predicate(found):
                    return found
                await asyncio.sleep(0.05)

        return await asyncio.wait_for(poll(), TIMEOUT)


def cells():
    return [(1, "# Training"), (2, SETUP), (2, STATE), (2, LOOP)]


async def test_sync_options_are_advertised(bare_client):
    # VS Code declares notebook support (pytest-lsp's recorded capabilities lack it);
    # pygls advertises the sync options only to a client that does.
    capabilities = attrs.evolve(
        client_capabilities(CLIENTS["vscode"]),
        notebook_document=types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities()
        ),
    )
    result = await start(bare_client, capabilities, bare_client.workspace)
    (selector,) = result.capabilities.notebook_document_sync.notebook_selector
    # Markdown and raw cells too: cell numbers count them (they are not analysed).
    assert [c.language for c in selector.cells] == ["python", "markdown", "raw"]


async def test_diagnostics_on_cell_uris_update_and_clear(client):
    notebook = Notebook(client, client.workspace / "train.ipynb", cells())
    found = await notebook.diagnostics(3, lambda d: d)
    (diagnostic,) = found
    assert diagnostic.code == "AG001" and "`features` (cell 3 line 3)" in diagnostic.message
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (3, 4)
    assert await notebook.diagnostics(2) == []  # the state cell has none of its own
    if client.editor == "vscode":  # relatedInformation: evidence in another cell's URI
        related = {r.location.uri for r in diagnostic.related_information}
        assert related == {notebook.uri_of(2), notebook.uri_of(3)}
    # A change in another cell re-analyses the training cell: `hidden` is what is left.
    notebook.set_text(2, STATE.replace("features = cell(torch.randn(2, 4))", "features = 0"))
    (left,) = await notebook.diagnostics(3, lambda d: d and "`hidden`" in d[0].message)
    assert left.code == "AG001"
    fixed = LOOP.replace("    hidden = cell(", "    hidden = hidden.detach()\n    hidden = cell(")
    notebook.set_text(3, fixed)
    assert await notebook.diagnostics(3, lambda d: d == []) == []
    if not uses_pull(client):
        notebook.set_text(3, LOOP)
        await notebook.diagnostics(3, lambda d: d)
        notebook.close()
        assert await notebook.diagnostics(3, lambda d: d == []) == []


async def test_hover_and_quick_fix_in_a_cell(client):
    notebook = Notebook(client, client.workspace / "train.ipynb", cells())
    await notebook.diagnostics(3, lambda d: d)
    position = types.Position(line=3, character=6)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(notebook.uri_of(3)), position=position
        )
    )
    assert hover is not None and "`features`" in hover.contents.value
    # Steps in another cell say which: the graph is built in the state cell (cell 3).
    assert "cell 3 line 3" in hover.contents.value
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(notebook.uri_of(3)),
            range=types.Range(start=position, end=position),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    preferred = [a for a in actions if a.is_preferred]
    assert preferred, [a.title for a in actions]
    edits = preferred[0].edit.changes
    assert set(edits) <= {notebook.uri_of(2), notebook.uri_of(3)}
    inserted = "".join(e.new_text for e in edits[notebook.uri_of(3)])
    assert "features = cell(torch.randn(2, 4))" in inserted  # moved into the loop
    fix_all = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(notebook.uri_of(3)),
            range=types.Range(start=position, end=position),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.autograd-lint"]),
        )
    )
    (action,) = fix_all
    assert action.kind == "source.fixAll.autograd-lint"
    assert notebook.uri_of(3) in action.edit.changes

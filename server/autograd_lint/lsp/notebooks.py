"""Notebooks in the language server (LSP 3.17 notebook synchronisation).

pygls keeps each open notebook and its cells' text (`ls.workspace`); here a notebook's
Python code cells are analysed as one program (autograd_lint.notebook), with one
AnalysisCache per notebook so that a change in one cell re-analyses only what that cell
reaches. Findings come back by cell: diagnostics on each cell's URI at cell-relative
positions, evidence in other cells as relatedInformation on those cells' URIs, hovers and
quick fixes on the cell under the cursor, and fix-all as edits of the cells it changes.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsprotocol import types

from ..analysis import AnalysisCache
from ..analysis.model import Finding, Position, Role
from .convert import LineIndex, to_diagnostic
from .documents import Document, split_lines, uri_to_path
from .hover import hover_markdown
from .settings import effective_settings

if TYPE_CHECKING:  # the notebook analysis is imported by the first notebook, not at start-up
    from ..notebook.program import Program

# Markdown and raw cells are asked for too, though only Python ones are analysed: a client
# syncs only the cells the selector names, and cell numbers count every cell (as Jupyter,
# ruff and our CLI do), so a notebook's markdown cells must be seen to be counted.
SYNC_OPTIONS = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            notebook="*",
            cells=[
                types.NotebookCellLanguage(language=language)
                for language in ("python", "markdown", "raw")
            ],
        )
    ]
)
FIX_ALL_KIND = "source.fixAll.autograd-lint"


@dataclass
class Notebook:
    uri: str
    holder: Document  # for the project and settings lookups the server does per document
    cache: AnalysisCache = field(default_factory=AnalysisCache)
    program: Program | None = None
    cell_uris: dict[int, str] = field(default_factory=dict)  # cell number -> cell URI
    texts: dict[str, str] = field(default_factory=dict)  # cell URI -> text analysed
    findings: list[Finding] = field(default_factory=list)  # program coordinates
    local: list[Finding] = field(default_factory=list)  # by cell
    published: set[str] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)  # cells to publish after an analysis
    localized: dict = field(default_factory=dict)  # (finding, its cells' starts) -> by cell
    converted: dict = field(default_factory=dict)  # (index, finding, cell texts) -> diagnostic
    diagnostics: dict[str, list] = field(default_factory=dict)
    pending: asyncio.Task | None = None
    last_change: float = 0.0
    stale: bool = True

    def cell_number(self, cell_uri: str) -> int | None:
        return next((n for n, uri in self.cell_uris.items() if uri == cell_uri), None)

    def lines(self, number: int, encoding: str) -> LineIndex:
        return LineIndex(split_lines(self.texts.get(self.cell_uris.get(number, ""), "")), encoding)


def register(server) -> None:
    server.notebooks = {}
    server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)(did_close)


# -- synchronisation --------------------------------------------------------------------------


def did_open(ls, params: types.DidOpenNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    holder = Document(uri=uri, language_id="python", version=0, text="", path=uri_to_path(uri))
    ls.notebooks[uri] = Notebook(uri, holder)
    schedule(ls, ls.notebooks[uri], immediate=True)


def did_change(ls, params: types.DidChangeNotebookDocumentParams) -> None:
    notebook = ls.notebooks.get(params.notebook_document.uri)
    if notebook is not None:
        schedule(ls, notebook)


def did_close(ls, params: types.DidCloseNotebookDocumentParams) -> None:
    notebook = ls.notebooks.pop(params.notebook_document.uri, None)
    if notebook is None:
        return
    if notebook.pending is not None:
        notebook.pending.cancel()
    for cell_uri in notebook.published:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[])
        )


def schedule(ls, notebook: Notebook, *, immediate: bool = False) -> None:
    """As for files: at once after a quiet spell, after a short debounce within a burst."""
    now = time.monotonic()
    quiet = now - notebook.last_change >= ls.debounce
    notebook.last_change, notebook.stale = now, True
    if notebook.pending is not None:
        notebook.pending.cancel()
    delay = 0.0 if immediate or quiet else ls.debounce
    notebook.pending = asyncio.ensure_future(_analyse_later(ls, notebook, delay))


async def _analyse_later(ls, notebook: Notebook, delay: float) -> None:
    await asyncio.sleep(delay)
    await ls.settings_loaded.wait()
    notebook.pending = None
    if ls.notebooks.get(notebook.uri) is not notebook:
        return
    try:
        analyse_notebook(ls, notebook)
        # Pushed even to clients that pull: VS Code's language client pulls diagnostics
        # only for text editor tabs, never for notebook cells. A pull on a cell URI is
        # answered too (pull_diagnostics below).
        publish(ls, notebook)
    except Exception as exc:  # noqa: BLE001 - one notebook must not stop the server
        ls.log(f"autograd-lint failed on {notebook.uri}: {exc!r}", "error")


# -- analysis -----------------------------------------------------------------------------------


def analyse_notebook(ls, notebook: Notebook) -> bool:
    """Bring findings and per-cell diagnostics up to the notebook's current cells; True
    when any cell's diagnostics changed."""
    if not notebook.stale:
        return False
    notebook.stale = False
    from ..notebook.check import analyse
    from ..notebook.program import build_program

    document = ls.workspace.get_notebook_document(notebook_uri=notebook.uri)
    if document is None:
        return False
    previous = notebook.texts
    cells, notebook.cell_uris, notebook.texts = [], {}, {}
    for index, cell in enumerate(document.cells):
        if cell.kind != types.NotebookCellKind.Code:
            continue
        text_document = ls.workspace.get_text_document(cell.document)
        if (text_document.language_id or "python") != "python":
            continue
        notebook.cell_uris[index + 1] = cell.document
        notebook.texts[cell.document] = text_document.source
        cells.append((index, text_document.source))
    program = build_program(cells)
    holder = notebook.holder
    if holder.settings is None:
        problems: list[str] = []
        client = ls.client_settings(notebook.uri)
        holder.settings = effective_settings(holder.path, client, problems) or False
        for problem in problems:
            ls.log(problem, "error")
    findings = []
    if holder.settings is not False:
        project = ls.project_of(holder)
        resolver = project.resolve if project else None
        findings = analyse(program, holder.path, holder.settings, resolver, notebook.cache)
    notebook.program, notebook.findings = program, findings
    notebook.local = _localize_all(notebook, program, findings)
    old = notebook.diagnostics
    notebook.diagnostics = _diagnostics(ls, notebook)
    # Published: the cells whose diagnostics changed, and those edited (their editor
    # waits for the diagnostics of the new text) -- not all 200 cells on each keystroke.
    notebook.touched = {
        uri
        for uri, diagnostics in notebook.diagnostics.items()
        if old.get(uri) != diagnostics or previous.get(uri) != notebook.texts[uri]
    }
    return old != notebook.diagnostics


def _localize_all(notebook: Notebook, program: Program, findings: list[Finding]) -> list:
    """Each finding by cell; one whose cells start where they did is not localized again
    (a keystroke leaves most findings, and the cells they lie in, where they were)."""
    from ..notebook.check import localize

    memo, notebook.localized = notebook.localized, {}
    out = []
    for finding in findings:
        lines = [finding.span.start.line] + [s.span.start.line for s in finding.evidence]
        cells = tuple(c.first_line if (c := program.cell_at(n)) else 0 for n in lines)
        key = (finding, cells)
        local = memo.get(key) or localize(program, finding)
        notebook.localized[key] = local
        out.append(local)
    return out


def _diagnostics(ls, notebook: Notebook) -> dict[str, list]:
    out: dict[str, list] = {uri: [] for uri in notebook.cell_uris.values()}
    memo, notebook.converted = notebook.converted, {}
    for index, finding in enumerate(notebook.local):
        cell_uri = notebook.cell_uris.get(finding.cell)
        if cell_uri is None:
            continue
        # The texts of the cells it points into decide its columns: part of the key.
        cells = {finding.cell} | {s.cell for s in finding.evidence if s.cell is not None}
        key = (index, finding, tuple(notebook.texts.get(notebook.cell_uris.get(c)) for c in cells))
        diagnostic = memo.get(key) or _diagnostic(ls, notebook, index, finding, cell_uri)
        notebook.converted[key] = diagnostic
        out[cell_uri].append(diagnostic)
    return out


def _diagnostic(ls, notebook: Notebook, index: int, finding: Finding, cell_uri: str):
    lines = notebook.lines(finding.cell, ls.encoding)
    diagnostic = to_diagnostic(
        finding, index, lines, cell_uri, related_information=ls.related_information
    )
    if diagnostic.related_information:
        # Steps in other cells point into those cells' documents.
        for step, related in zip(finding.evidence, diagnostic.related_information):
            if step.cell is not None and step.cell in notebook.cell_uris and not step.path:
                related.location = types.Location(
                    uri=notebook.cell_uris[step.cell],
                    range=notebook.lines(step.cell, ls.encoding).range(step.span),
                )
    return diagnostic


def publish(ls, notebook: Notebook) -> None:
    for cell_uri in notebook.published - set(notebook.diagnostics):
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[])
        )
    for cell_uri, diagnostics in notebook.diagnostics.items():
        if cell_uri in notebook.touched or cell_uri not in notebook.published:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=diagnostics)
            )
    notebook.published = set(notebook.diagnostics)


async def notebook_of_cell(ls, cell_uri: str) -> tuple[Notebook, int] | None:
    """The open notebook holding this cell, analysed, and the cell's number."""
    document = ls.workspace.get_notebook_document(cell_uri=cell_uri)
    notebook = ls.notebooks.get(document.uri) if document is not None else None
    if notebook is None:
        return None
    await ls.settings_loaded.wait()
    if notebook.pending is not None:
        notebook.pending.cancel()
        notebook.pending = None
    analyse_notebook(ls, notebook)
    number = notebook.cell_number(cell_uri)
    return (notebook, number) if number is not None else None


# -- hover, diagnostics on request ----------------------------------------------------------


async def hover(ls, params: types.HoverParams) -> types.Hover | None:
    found = await notebook_of_cell(ls, params.text_document.uri)
    if found is None:
        return None
    notebook, number = found
    lines = notebook.lines(number, ls.encoding)
    at = lines.from_client(params.position)
    hits = []
    for finding in notebook.local:
        if finding.cell == number and finding.span.contains(at.line, at.column):
            fails = finding.steps(Role.FAILS)
            hits.append((finding, fails[0] if fails else None, finding.span))
            continue
        for step in finding.evidence:
            if step.cell == number and not step.path and step.span.contains(at.line, at.column):
                hits.append((finding, step, step.span))
                break
    if not hits:
        return None
    kind = types.MarkupKind.Markdown if ls.markdown_hover else types.MarkupKind.PlainText
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=hover_markdown(hits)),
        range=lines.range(hits[0][2]),
    )


async def pull_diagnostics(ls, params: types.DocumentDiagnosticParams):
    found = await notebook_of_cell(ls, params.text_document.uri)
    if found is None:
        return None
    notebook, _ = found
    return types.RelatedFullDocumentDiagnosticReport(
        items=notebook.diagnostics.get(params.text_document.uri, [])
    )


def cell_position(notebook: Notebook, number: int, position: Position) -> Position:
    """A cell-relative position in program coordinates."""
    cell = notebook.program.cell_numbered(number)
    return Position(notebook.program.to_program_line(cell, position.line), position.column)

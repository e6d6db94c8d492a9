"""Quick fixes and fix-all in notebook cells: fixes computed on the notebook's program,
then cut back into cells (notebook.program.Program.split) and sent as edits of the
cells they change."""

from __future__ import annotations

from lsprotocol import types

from ..fixes.available import rewrite_engine
from ..fixes.text import apply_edits, minimal_edits
from .notebooks import FIX_ALL_KIND, Notebook, notebook_of_cell

FIX_ALL_TITLE = "Fix all autograd-lint problems in the notebook"


async def code_actions(ls, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    found = await notebook_of_cell(ls, params.text_document.uri)
    if found is None:
        return None
    notebook, number = found
    only = params.context.only if params.context else None
    lines = notebook.lines(number, ls.encoding)
    start, end = lines.from_client(params.range.start), lines.from_client(params.range.end)
    actions = []
    if _wanted(types.CodeActionKind.QuickFix, only):
        for local, finding in zip(notebook.local, notebook.findings):
            if local.cell != number or not _overlaps(local, start, end):
                continue
            diagnostic = _diagnostic_of(notebook, params.text_document.uri, local, lines)
            for fix in rewrite_engine().fixes_for(notebook.program.text, finding):
                new = apply_edits(notebook.program.text, list(fix.edits))
                edit = cell_edits(ls, notebook, new)
                if edit is None:
                    continue
                actions.append(
                    types.CodeAction(
                        title=fix.title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic] if diagnostic else None,
                        is_preferred=fix.preferred or None,
                        edit=edit,
                    )
                )
    if only and _wanted(FIX_ALL_KIND, only) and notebook.findings:
        edit = fix_all_edit(ls, notebook)
        if edit is not None:
            actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL_KIND, edit=edit))
    return actions or None


def fix_all_edit(ls, notebook: Notebook) -> types.WorkspaceEdit | None:
    from ..notebook.check import analyse

    holder = notebook.holder
    project = ls.project_of(holder)
    resolver = project.resolve if project else None

    def analyzer(text: str, path: str):
        program = _reprogram(notebook, text)
        return analyse(program, path, holder.settings or None, resolver) if program else []

    new, applied, _ = rewrite_engine().fix_all(
        notebook.program.text, notebook.findings, path=holder.path, analyzer=analyzer
    )
    return cell_edits(ls, notebook, new) if applied else None


def _reprogram(notebook: Notebook, text: str):
    from ..notebook.check import reprogram

    return reprogram(notebook.program, text)


def cell_edits(ls, notebook: Notebook, new_text: str) -> types.WorkspaceEdit | None:
    """The edits of each cell a fixed program text changes (None: it cannot be cut back
    into the cells, or changes nothing)."""
    sources = notebook.program.split(new_text)
    if sources is None:
        return None
    changes = {}
    for cell in notebook.program.cells:
        uri = notebook.cell_uris.get(cell.number)
        new = sources.get(cell.index, cell.source)
        if uri is None or new == cell.source:
            continue
        lines = notebook.lines(cell.number, ls.encoding)
        changes[uri] = [
            types.TextEdit(range=lines.range(edit.span), new_text=edit.new_text)
            for edit in minimal_edits(cell.source, new)
        ]
    return types.WorkspaceEdit(changes=changes) if changes else None


def _wanted(kind: str, only) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _overlaps(finding, start, end) -> bool:
    spans = [finding.span]
    return any(
        (s.start.line, s.start.column) <= (end.line, end.column)
        and (start.line, start.column) <= (s.end.line, s.end.column)
        for s in spans
    )


def _diagnostic_of(notebook: Notebook, uri: str, finding, lines):
    wanted = lines.range(finding.span)
    for diagnostic in notebook.diagnostics.get(uri, []):
        if diagnostic.range == wanted and diagnostic.code == finding.code:
            return diagnostic
    return None

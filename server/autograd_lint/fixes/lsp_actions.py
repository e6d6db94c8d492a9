"""Code actions for the language server, built from findings and fixes.

- one `quickfix` action per fix of every finding in the requested range, the
  preferred one marked `isPreferred`, the last one "Ignore AG00x on this line";
- one `source.fixAll.autograd-lint` action for the whole document.

Edits are computed when the client resolves an action (`codeAction/resolve`) if it
can, so listing actions for a light bulb stays cheap; otherwise they come inline.
Edits go out as `documentChanges` (versioned) when the client supports them, else as
`changes` (Neovim's default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lsprotocol import types

from ..analysis.model import Finding, Position
from .model import TextEdit
from .text import minimal_edits

FIX_ALL_KIND = "source.fixAll.autograd-lint"
FIX_ALL_TITLE = "Fix all autograd-lint problems"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL_KIND]


@dataclass(frozen=True)
class EditorSupport:
    resolve_edits: bool = False
    document_changes: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None) -> EditorSupport:
        code_action = getattr(getattr(capabilities, "text_document", None), "code_action", None)
        resolve = getattr(code_action, "resolve_support", None)
        workspace_edit = getattr(getattr(capabilities, "workspace", None), "workspace_edit", None)
        return cls(
            resolve_edits=bool(resolve and "edit" in (resolve.properties or [])),
            document_changes=bool(getattr(workspace_edit, "document_changes", False)),
        )


@dataclass
class DocumentState:
    """What the server knows about the document the actions are for."""

    uri: str
    version: int | None
    source: str
    findings: Sequence[Finding]
    lines: object  # the server's LineIndex: .range(span), .from_client(position)
    diagnostics: Sequence[types.Diagnostic] = ()
    analyzer: Callable[[str, str], list[Finding]] | None = None
    path: str = "<string>"


def _engine():
    """The rewrite engine, imported with the first code action: it needs libcst, which
    would otherwise double the language server's start-up time (and which a server run
    from the VS Code extension's pure-Python bundle may lack: then only "Ignore")."""
    from .available import rewrite_engine

    return rewrite_engine()


def options() -> types.CodeActionOptions:
    return types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True)


def wanted_kind(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def _overlaps(finding: Finding, start: Position, end: Position) -> bool:
    span = finding.span
    return (span.start.line, span.start.column) <= (end.line, end.column) and (
        start.line,
        start.column,
    ) <= (span.end.line, span.end.column)


def code_actions(
    state: DocumentState, params: types.CodeActionParams, support: EditorSupport
) -> list[types.CodeAction]:
    only = params.context.only if params.context else None
    actions: list[types.CodeAction] = []
    if wanted_kind(types.CodeActionKind.QuickFix, only):
        start = state.lines.from_client(params.range.start)
        end = state.lines.from_client(params.range.end)
        for index, finding in enumerate(state.findings):
            if not _overlaps(finding, start, end):
                continue
            diagnostic = state.diagnostics[index] if index < len(state.diagnostics) else None
            for fix in _engine().fixes_for(state.source, finding):
                action = types.CodeAction(
                    title=fix.title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic] if diagnostic is not None else None,
                    is_preferred=fix.preferred or None,
                    data={
                        "uri": state.uri,
                        "version": state.version,
                        "index": index,
                        "title": fix.title,
                    },
                )
                if not support.resolve_edits:
                    action.edit = workspace_edit(state, fix.edits, support)
                actions.append(action)
    # Without resolve, fix-all would re-analyse the file for every light bulb; such a
    # client gets it when it asks for it by kind (on save, or a "fix all" command).
    asked = bool(only) and wanted_kind(FIX_ALL_KIND, only)
    rewrites = getattr(_engine(), "rewrites_available", True)  # without libcst: nothing to apply
    if (
        rewrites
        and wanted_kind(FIX_ALL_KIND, only)
        and state.findings
        and (support.resolve_edits or asked)
    ):
        action = types.CodeAction(
            title=FIX_ALL_TITLE,
            kind=FIX_ALL_KIND,
            data={"uri": state.uri, "version": state.version, "fixAll": True},
        )
        if not support.resolve_edits:
            action.edit = _fix_all_edit(state, support)
            if action.edit is None:
                return actions
        actions.append(action)
    return actions


def resolve(
    action: types.CodeAction, state: DocumentState, support: EditorSupport
) -> types.CodeAction:
    """Fill in the action's edit; an action for an older version of the document gets none."""
    data = action.data if isinstance(action.data, dict) else {}
    if data.get("uri") != state.uri or data.get("version") != state.version:
        return action
    if data.get("fixAll"):
        action.edit = _fix_all_edit(state, support) or workspace_edit(state, (), support)
        return action
    index = data.get("index")
    if not isinstance(index, int) or not 0 <= index < len(state.findings):
        return action
    for fix in _engine().fixes_for(state.source, state.findings[index]):
        if fix.title == data.get("title"):
            action.edit = workspace_edit(state, fix.edits, support)
            break
    return action


def _fix_all_edit(state: DocumentState, support: EditorSupport) -> types.WorkspaceEdit | None:
    new, applied, _ = _engine().fix_all(
        state.source, list(state.findings), path=state.path, analyzer=state.analyzer
    )
    if not applied:
        return None
    return workspace_edit(state, minimal_edits(state.source, new), support)


def workspace_edit(
    state: DocumentState, edits: Sequence[TextEdit], support: EditorSupport
) -> types.WorkspaceEdit:
    text_edits = [
        types.TextEdit(range=state.lines.range(edit.span), new_text=edit.new_text) for edit in edits
    ]
    if support.document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=state.uri, version=state.version
                    ),
                    edits=text_edits,
                )
            ]
        )
    return types.WorkspaceEdit(changes={state.uri: text_edits})


# -- the server's side ----------------------------------------------------------------------
def register(server) -> None:
    """Answer textDocument/codeAction and codeAction/resolve on an AutogradLintServer."""
    server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options())(_code_action)
    server.feature(types.CODE_ACTION_RESOLVE)(_resolve_action)


def _support(ls) -> EditorSupport:
    return EditorSupport.of(getattr(ls, "client_capabilities", None))


async def _analysed_state(ls, uri: str | None) -> DocumentState | None:
    document = ls.documents.get(uri) if uri else None
    if document is None or not document.is_python:
        return None
    await ls.settings_loaded.wait()
    ls.analyse(document)
    from ..checker import check_source

    project = ls.project_of(document)
    settings = document.settings or None

    def analyzer(text: str, path: str) -> list[Finding]:
        resolver = project.resolve if project is not None else None
        return check_source(text, path, settings, resolver=resolver)

    return DocumentState(
        uri=document.uri,
        version=document.version,
        source=document.source,
        findings=list(document.findings),
        lines=document.line_index(ls.encoding),
        diagnostics=list(ls.diagnostics_of(document)),
        analyzer=analyzer,
        path=document.path,
    )


async def _code_action(ls, params: types.CodeActionParams):
    state = await _analysed_state(ls, params.text_document.uri)
    if state is None and getattr(ls, "notebooks", None):  # a notebook cell's URI
        from ..lsp.notebook_actions import code_actions as notebook_actions

        return await notebook_actions(ls, params)
    if state is None:
        return None
    return code_actions(state, params, _support(ls)) or None


async def _resolve_action(ls, action: types.CodeAction) -> types.CodeAction:
    uri = action.data.get("uri") if isinstance(action.data, dict) else None
    state = await _analysed_state(ls, uri)
    if state is None:
        return action
    return resolve(action, state, _support(ls))

"""The LSP methods the server answers, registered on an AutogradLintServer."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path

from lsprotocol import types

from . import notebooks
from .documents import uri_to_path
from .hover import evidence_at, findings_at, hover_markdown
from .server import CONFIGURATION_TIMEOUT_SECONDS
from .settings import SECTION, TRACE_LEVELS, section_of
from .workspace_diagnostics import WorkspaceReports

STATUS_COMMAND = "autograd-lint.serverStatus"
PYPROJECT = "pyproject.toml"


def register(server) -> None:
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
    server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=SECTION, inter_file_dependencies=False, workspace_diagnostics=True
        ),
    )(pull_diagnostics)
    # diagnosticMode "workspace": the files that are not open (empty answers otherwise).
    reports = WorkspaceReports()
    server.feature(types.WORKSPACE_DIAGNOSTIC)(lambda ls, params: reports.report(ls, params))
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(did_change_workspace_folders)
    server.feature(types.SET_TRACE)(set_trace)
    server.feature(types.EXIT)(exit_now)
    server.command(STATUS_COMMAND)(status)


def _capability(root, *path):
    """A nested client capability, or None where any level is missing."""
    for name in path:
        root = getattr(root, name, None)
        if root is None:
            return None
    return root


def initialize(ls, params: types.InitializeParams) -> None:
    caps = params.capabilities
    ls.encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    ls.pull_diagnostics = _capability(caps, "text_document", "diagnostic") is not None
    ls.related_information = bool(
        _capability(caps, "text_document", "publish_diagnostics", "related_information")
    )
    formats = _capability(caps, "text_document", "hover", "content_format")
    ls.markdown_hover = formats is None or types.MarkupKind.Markdown in formats
    ls.configuration_pull = bool(_capability(caps, "workspace", "configuration"))
    ls.diagnostic_refresh = bool(_capability(caps, "workspace", "diagnostics", "refresh_support"))
    ls.apply_settings(section_of(params.initialization_options), {})
    if params.trace in TRACE_LEVELS:
        ls.trace = params.trace


async def initialized(ls, params: types.InitializedParams) -> None:
    caps = ls.client_capabilities
    registrations = []
    if _capability(caps, "workspace", "did_change_watched_files", "dynamic_registration"):
        watchers = [
            types.FileSystemWatcher(glob_pattern=f"**/{PYPROJECT}"),
            types.FileSystemWatcher(glob_pattern="**/*.py"),  # modules other files import
        ]
        registrations.append(
            types.Registration(
                id=str(uuid.uuid4()),
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
            )
        )
    if ls.configuration_pull and _capability(
        caps, "workspace", "did_change_configuration", "dynamic_registration"
    ):
        # Clients that answer workspace/configuration only notify changes to servers that
        # registered for them.
        registrations.append(
            types.Registration(
                id=str(uuid.uuid4()),
                method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                register_options=types.DidChangeConfigurationRegistrationOptions(section=SECTION),
            )
        )
    if registrations:
        try:
            await asyncio.wait_for(
                ls.client_register_capability_async(
                    types.RegistrationParams(registrations=registrations)
                ),
                CONFIGURATION_TIMEOUT_SECONDS,
            )
        except Exception as exc:
            ls.log(f"client/registerCapability failed: {exc!r}", "error")
    if ls.configuration_pull:
        await ls.pull_configuration()
    ls.settings_loaded.set()
    ls.log(
        f"autograd-lint {ls.version} ready: {ls.encoding} positions, "
        f"{'pull' if ls.pull_diagnostics else 'push'} diagnostics"
    )


def did_open(ls, params: types.DidOpenTextDocumentParams) -> None:
    document = ls.documents.open(params.text_document)
    if document.is_python:
        ls.text_changed(document, document.source)  # the buffer may differ from the disk
    ls.schedule(document, immediate=True)


def did_change(ls, params: types.DidChangeTextDocumentParams) -> None:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        ls.log(f"change to a document that is not open: {params.text_document.uri}", "error")
        return
    for change in params.content_changes:
        document.apply_change(change, ls.encoding)
    document.version = params.text_document.version
    ls.schedule(document)
    if document.is_python:
        ls.text_changed(document, document.source)


def did_close(ls, params: types.DidCloseTextDocumentParams) -> None:
    document = ls.documents.close(params.text_document.uri)
    if document is None:
        return
    ls.forget(document)
    if document.is_python:
        ls.text_changed(document, None)
    if not ls.pull_diagnostics and document.is_python:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=[])
        )


async def hover(ls, params: types.HoverParams) -> types.Hover | None:
    document = ls.documents.get(params.text_document.uri)
    if document is None and ls.notebooks:  # a notebook cell's URI
        return await notebooks.hover(ls, params)
    if document is None or not document.is_python:
        return None
    await ls.settings_loaded.wait()
    ls.analyse(document)
    lines = document.line_index(ls.encoding)
    position = lines.from_client(params.position)
    hits = findings_at(document.findings, position)
    elsewhere = [f for other in ls.documents if other is not document for f in other.findings]
    hits += evidence_at(elsewhere, {document.path, document.resolved_path}, position)
    if not hits:
        return None
    kind = types.MarkupKind.Markdown if ls.markdown_hover else types.MarkupKind.PlainText
    return types.Hover(
        contents=types.MarkupContent(
            kind=kind,
            value=hover_markdown(hits, document.source, {document.path, document.resolved_path}),
        ),
        range=lines.range(hits[0][2]),
    )


async def pull_diagnostics(ls, params: types.DocumentDiagnosticParams):
    document = ls.documents.get(params.text_document.uri)
    if document is None and ls.notebooks:  # a notebook cell's URI
        report = await notebooks.pull_diagnostics(ls, params)
        if report is not None:
            return report
    if document is None or not document.is_python:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    await ls.settings_loaded.wait()
    ls.analyse(document)
    if params.previous_result_id == document.result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=document.result_id)
    return types.RelatedFullDocumentDiagnosticReport(
        items=ls.diagnostics_of(document), result_id=document.result_id
    )


async def did_change_configuration(ls, params: types.DidChangeConfigurationParams) -> None:
    if ls.configuration_pull:
        await ls.pull_configuration()
    else:
        ls.apply_settings(section_of(params.settings), {})


async def did_change_workspace_folders(ls, params) -> None:
    # pygls has updated ls.workspace.folders; fetch the new folders' settings.
    if ls.configuration_pull:
        await ls.pull_configuration()


def did_change_watched_files(ls, params: types.DidChangeWatchedFilesParams) -> None:
    open_paths = {d.path for d in ls.documents}
    for change in params.changes:
        path = uri_to_path(change.uri)
        if path.endswith(".py") and path not in open_paths:
            # Saved or changed outside the editor: whoever imports it may change.
            for project in ls.projects.values():
                if project.contains(Path(path)):
                    ls.recheck(project.changed(path))
    if any(change.uri.endswith("/" + PYPROJECT) for change in params.changes):
        ls.log("pyproject.toml changed: reloading project settings")
        ls.invalidate_settings()


def exit_now(ls, params) -> None:
    # Freeing every document's trees at interpreter exit takes seconds with many files
    # open, and the editor waits for it; every message has been written and flushed.
    sys.stderr.flush()
    ls.dump_profile()
    os._exit(0 if ls.protocol._shutdown else 1)


def set_trace(ls, params: types.SetTraceParams) -> None:
    ls.trace = str(getattr(params.value, "value", params.value))


def status(ls, *args) -> dict:
    """What the server is doing, for tests and bug reports: `{"uri": ...}` adds that
    document's effective settings."""
    uri = args[0].get("uri") if args and isinstance(args[0], dict) else None
    modules = sorted({name.partition(".")[0] for name in list(sys.modules)})
    out = {
        "version": ls.version,
        "positionEncoding": str(getattr(ls.encoding, "value", ls.encoding)),
        "diagnostics": "pull" if ls.pull_diagnostics else "push",
        "relatedInformation": ls.related_information,
        "trace": ls.trace,
        "documents": sorted(d.uri for d in ls.documents),
        "torchLoaded": "torch" in sys.modules,
        "modules": modules,
    }
    if uri is not None:
        document = ls.documents.get(uri)
        client = ls.client_settings(uri)
        out["clientSettings"] = client.to_json()
        if document is not None:
            ls.analyse(document)
            checker = document.settings
            out["checkerSettings"] = (
                None
                if checker is False or checker is None
                else {
                    "select": checker.select,
                    "ignore": checker.ignore,
                    "severity": checker.severity,
                }
            )
            out["analysedVersion"] = document.analysed_version
    return out

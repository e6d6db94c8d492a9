"""The language server: diagnostics (push or pull), hover stories, settings per folder.

Analysis runs on the event loop, so every message to the client is written from the
event loop thread (pygls writes stdout without a lock). A document is analysed right
away when it has been quiet for a while, and after a short debounce while changes come
in a burst; a newer change cancels the pending analysis, so only the latest version is
ever published.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import itertools
import json
import logging
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import _prepare_command_arguments, lsp_method

from .. import __version__
from ..analysis import AnalysisCache
from ..checker import check_source
from ..rules import RULES
from ..workspace import Workspace, find_root
from . import profiling, publishing, transport
from .collector import Collector
from .convert import LineIndex, choose_position_encoding
from .documents import Document, DocumentStore, split_lines
from .notebooks import SYNC_OPTIONS as NOTEBOOK_SYNC
from .settings import (
    SECTION,
    TRACE_LEVELS,
    ClientSettings,
    analysis_python,
    effective_settings,
    parse_client_settings,
)

# Changes closer together than this are a burst: wait this long after the last one.
DEBOUNCE_SECONDS = 0.05
# The engine's cache of a 5,000-line file takes about 18 MB (mostly syntax trees): keep
# it for the documents analysed most recently (the ones being edited) up to this many
# lines in all, the latest one whatever its size; any other is analysed afresh on its
# next change.
CACHED_LINES = 12_000
CONFIGURATION_TIMEOUT_SECONDS = 5.0
_LOG_TYPES = {
    "error": types.MessageType.Error,
    "messages": types.MessageType.Info,
    "verbose": types.MessageType.Log,
}


class AutogradLintProtocol(LanguageServerProtocol):
    """pygls' protocol with our position-encoding choice and our own document store."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        # "The initialize request may only be sent once": a second one would reset the
        # client's capabilities and encoding under the documents already open.
        if getattr(self, "_initialize_seen", False):
            raise JsonRpcInvalidRequest("initialize may only be sent once")
        self._initialize_seen = True
        # pygls takes the client's first encoding; we prefer UTF-16 whenever it is offered.
        general = params.capabilities.general or types.GeneralClientCapabilities()
        chosen = choose_position_encoding(general.position_encodings)
        capabilities = attrs.evolve(
            params.capabilities, general=attrs.evolve(general, position_encodings=[chosen])
        )
        result = yield from super().lsp_initialize(attrs.evolve(params, capabilities=capabilities))
        # The rule registry, for a client that shows rules (VS Code: titles, confirmable codes).
        experimental = {"autogradLint": {"rules": [r.to_json() for r in RULES.values()]}}
        return attrs.evolve(
            result, capabilities=attrs.evolve(result.capabilities, experimental=experimental)
        )

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams):
        # pygls runs a command as a generator handler that yields the command to a task of
        # its own: `$/cancelRequest` then answered "canceled" while that task (a runtime
        # confirmation and the script it runs) went on. As a coroutine, the request's task
        # is the command's, and cancelling it stops the run.
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams.of(
                ValueError(f"Command name {params.command!r} is not defined")
            )
        try:
            args, kwargs = _prepare_command_arguments(handler, params, self._converter)
        except Exception as exc:
            raise JsonRpcInvalidParams.of(exc) from exc
        result = handler(*args, **kwargs)
        return await result if inspect.isawaitable(result) else result

    # The documents live in DocumentStore (see documents.py); skip pygls' copy.
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params):
        yield self.fm.features[types.TEXT_DOCUMENT_DID_OPEN], (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params):
        yield self.fm.features[types.TEXT_DOCUMENT_DID_CHANGE], (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params):
        yield self.fm.features[types.TEXT_DOCUMENT_DID_CLOSE], (params,), None

    def to_json(self, value) -> str:
        """An lsprotocol value as JSON text, as pygls would send it, without the blanks
        after separators (a tenth of a publish of ~100 diagnostics with their evidence)."""
        return json.dumps(self._converter.unstructure(value), separators=(",", ":"))

    def notify_json(self, method: str, params_json: str) -> None:
        """A notification whose params are JSON text already, framed and written as
        pygls' `_send_data` writes messages (ASCII JSON, so characters count bytes; a
        writer that returns an awaitable, as pygls' WebSocket one does, is scheduled)."""
        if self.writer is None:
            return
        body = f'{{"method": {json.dumps(method)}, "params": {params_json}, "jsonrpc": "2.0"}}'
        if self._include_headers:
            body = (
                f"Content-Length: {len(body)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n{body}"
            )
        try:
            written = self.writer.write(body.encode(self.CHARSET))
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)
        except BrokenPipeError:
            raise  # as pygls does: the client is gone
        except Exception as error:  # noqa: BLE001 - reported like pygls' own send errors
            self._server._report_server_error(error, JsonRpcInternalError)


class AutogradLintServer(LanguageServer):
    def __init__(self):
        super().__init__(
            "autograd-lint",
            __version__,
            protocol_cls=AutogradLintProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            # Notebooks with Python cells (lsp/notebooks.py).
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.documents = DocumentStore()
        self.encoding = types.PositionEncodingKind.Utf16
        self.pull_diagnostics = False
        self.related_information = False
        self.markdown_hover = True
        self.configuration_pull = False
        self.diagnostic_refresh = False
        self.global_settings = ClientSettings()
        self.folder_settings: dict[str, ClientSettings] = {}
        self.trace = "off"
        self.debounce = DEBOUNCE_SECONDS
        self._result_ids = itertools.count(1)
        self._cached: OrderedDict[str, Document] = OrderedDict()
        # One index of importable modules per project root, shared by its open documents.
        self.projects: dict[Path, Workspace] = {}
        # Set once the editor's settings are in (after `initialized`): analysing before
        # would flash diagnostics the settings hide.
        self.settings_loaded = asyncio.Event()
        self._analysis_errors: list[str] = []
        # Runtime verdicts shown on the diagnostics (confirm.Confirmations), once registered.
        self.confirmations = None
        self.collector = Collector()
        self.profile = None  # (cProfile.Profile, where to write it): see profiling.PROFILE_ENV

    def dump_profile(self) -> None:
        if self.profile is not None:
            profile, target = self.profile
            profile.disable()
            profile.dump_stats(target)

    # -- logging ----------------------------------------------------------------------

    def log(self, message: str, level: str = "messages") -> None:
        """window/logMessage; errors always, the rest as the trace level allows."""
        if level != "error" and TRACE_LEVELS.index(self.trace) < TRACE_LEVELS.index(level):
            return
        self.window_log_message(types.LogMessageParams(type=_LOG_TYPES[level], message=message))

    def report_server_error(self, error, source):
        # A bad message from the client is worth a log line, not a pop-up.
        self.log(f"{source.__name__}: {error}", "error")

    # -- settings ---------------------------------------------------------------------

    def apply_settings(self, global_data, folder_data: dict[str, object]) -> None:
        """Take new editor settings; re-check the open documents if they changed."""
        problems: list[str] = []
        global_settings = self.global_settings
        if global_data is not None:
            global_settings = parse_client_settings(global_data, problems)
        folder_settings = {
            uri: parse_client_settings(data, problems)
            for uri, data in folder_data.items()
            if data is not None
        }
        for problem in problems:
            self.log(f"settings: {problem}", "error")
        if (global_settings, folder_settings) == (self.global_settings, self.folder_settings):
            return
        self.global_settings, self.folder_settings = global_settings, folder_settings
        self.trace = global_settings.trace
        self.invalidate_settings()

    def invalidate_settings(self) -> None:
        """Recompute every document's settings (and so its diagnostics)."""
        for document in self.documents:
            document.settings = None
            document.analysed_version = None
        if not self.pull_diagnostics:
            for document in self.documents:
                self.schedule(document, immediate=True)
        elif self.diagnostic_refresh and len(self.documents):
            self.workspace_diagnostic_refresh(None)
        if self.confirmations is not None:
            self.confirmations.settings_changed()

    def client_settings(self, uri: str) -> ClientSettings:
        folders = [f for f in self.folder_settings if uri.startswith(f.rstrip("/") + "/")]
        return self.folder_settings[max(folders, key=len)] if folders else self.global_settings

    async def pull_configuration(self) -> None:
        folders = list(self.workspace.folders) if self.protocol._workspace else []
        items = [types.ConfigurationItem(section=SECTION)] + [
            types.ConfigurationItem(scope_uri=folder, section=SECTION) for folder in folders
        ]
        try:
            results = await asyncio.wait_for(
                self.workspace_configuration_async(types.ConfigurationParams(items=items)),
                CONFIGURATION_TIMEOUT_SECONDS,
            )
        except Exception as exc:  # a client that cannot answer keeps the settings we have
            self.log(f"workspace/configuration failed: {exc!r}", "error")
            return
        # A short or long answer from a confused client must not shift the folders.
        results = (list(results or []) + [None] * len(items))[: len(items)]
        self.apply_settings(results[0], dict(zip(folders, results[1:], strict=True)))

    # -- analysis ---------------------------------------------------------------------

    def schedule(self, document: Document, *, immediate: bool = False) -> None:
        if not document.is_python:
            return
        now = time.monotonic()
        quiet = now - document.last_change >= self.debounce
        document.last_change = now
        if document.pending is not None:
            document.pending.cancel()
        if self.pull_diagnostics:
            return  # analysed when the client asks
        delay = 0.0 if immediate or quiet else self.debounce
        document.pending = asyncio.ensure_future(self._publish_later(document, delay))

    async def _publish_later(self, document: Document, delay: float) -> None:
        await asyncio.sleep(delay)
        await self.settings_loaded.wait()
        document.pending = None
        if self.documents.get(document.uri) is not document:
            return  # closed (or reopened) meanwhile
        try:
            self.analyse(document)
            self.publish(document)
        except Exception as exc:
            self.log(f"autograd-lint failed on {document.uri}: {exc!r}", "error")

    def analyse(self, document: Document) -> None:
        """Bring the document's findings and diagnostics up to its current version."""
        if not document.is_stale:
            return
        with self.collector.analysing():
            self._analyse(document)

    def _analyse(self, document: Document) -> None:
        if document.pending is not None:
            document.pending.cancel()
            document.pending = None
        client = self.client_settings(document.uri)
        if document.settings is None:
            problems: list[str] = []
            document.settings = effective_settings(document.path, client, problems) or False
            for problem in problems:
                self.log(problem, "error")
        started = time.perf_counter()
        findings = []
        if document.settings is not False:
            self._analysis_errors.clear()
            project = self.project_of(document)
            findings = check_source(
                document.source,
                document.path,
                document.settings,
                cache=self._cache(document),
                resolver=project.resolve if project else None,
            )
            if self._analysis_errors:
                # Keep what the last good analysis showed rather than clearing it.
                document.analysed_version = document.version
                return
        diagnostics = self._diagnostics(document, findings)
        if diagnostics != document.diagnostics or not document.result_id:
            document.result_id = str(next(self._result_ids))
        document.findings, document.diagnostics = findings, diagnostics
        document.analysed_version = document.version
        self.log(
            f"analysed {document.path} v{document.version}: {len(findings)} finding(s) in "
            f"{(time.perf_counter() - started) * 1000:.1f} ms",
            "verbose",
        )

    def _diagnostics(self, document: Document, findings) -> list[types.Diagnostic]:
        lines = document.line_index(self.encoding)
        diagnostics = publishing.convert(
            document,
            findings,
            lines,
            related_information=self.related_information,
            other_file=self._other_file_lines(document),
        )
        if self.confirmations is not None:
            diagnostics = self.confirmations.decorate(document, findings, lines, diagnostics)
        return diagnostics

    def diagnostics_of(self, document: Document) -> list[types.Diagnostic]:
        """The document's diagnostics (analyse it first). A document not edited lately
        keeps only its findings, and gets its diagnostics back from them here."""
        if document.diagnostics is None:
            document.diagnostics = self._diagnostics(document, document.findings)
            if document.uri not in self._cached:
                document.converted = {}
                document.compact()
        return document.diagnostics

    # -- across files -------------------------------------------------------------------

    def project_of(self, document: Document) -> Workspace | None:
        """The project a file on disk belongs to (untitled buffers have none)."""
        if document.project is None and Path(document.path).is_absolute():
            try:
                root = find_root(Path(document.path))
            except OSError:
                return None
            document.project = self.projects.setdefault(root, Workspace(root))
        project = document.project
        if project is not None and project.use_python(
            analysis_python(self.client_settings(document.uri))
        ):  # another interpreter: what its libraries do is another story
            for other in self.documents:
                if other.project is project:
                    other.cache = None
        return project

    def text_changed(self, document: Document, text: str | None) -> None:
        """Tell the project a module's text changed (None: back to the file on disk) and
        re-check the open documents that import it."""
        project = self.project_of(document)
        if project is not None:
            self.recheck(project.changed(document.path, text))

    def _other_file_lines(self, document: Document):
        """Lines of the files a finding's evidence points into: the editor's buffer when
        the file is open, else what the project reads (the file on disk)."""

        @functools.lru_cache(maxsize=8)
        def lines_of(path: str) -> LineIndex | None:
            for other in self.documents:
                if other.path == path:
                    return other.line_index(self.encoding)
            project = self.project_of(document)
            text = project.read(Path(path)) if project else None
            return LineIndex(split_lines(text), self.encoding) if text is not None else None

        return lines_of

    def recheck(self, paths: set[str]) -> None:
        stale = [d for d in self.documents if d.is_python and d.resolved_path in paths]
        for document in stale:
            document.analysed_version = None
        if not self.pull_diagnostics:
            for document in stale:
                self.schedule(document)
        elif stale and self.diagnostic_refresh:
            self.workspace_diagnostic_refresh(None)

    def _cache(self, document: Document):
        if document.cache is None:
            document.cache = AnalysisCache()
        self._cached[document.uri] = document
        self._cached.move_to_end(document.uri)
        budget = CACHED_LINES - len(document.lines)
        for other in reversed(list(self._cached.values())[:-1]):
            budget -= len(other.lines)
            if budget < 0:
                del self._cached[other.uri]
                # What makes the next analysis and publish of a document cheap is worth
                # its memory only for the few being edited.
                other.cache = None
                other.converted = {}
                other.diagnostics_json = {}
                other.diagnostics = None  # rebuilt from the findings when asked for
                other.compact()
        return document.cache

    def forget(self, document: Document) -> None:
        """A closed document: stop its pending analysis and drop its cache."""
        if document.pending is not None:
            document.pending.cancel()
        if self._cached.get(document.uri) is document:
            del self._cached[document.uri]

    def publish(self, document: Document) -> None:
        self.protocol.notify_json(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            publishing.params_json(document, self.diagnostics_of(document), self.protocol.to_json),
        )

    def on_analysis_error(self, message: str) -> None:
        self._analysis_errors.append(message)
        self.log(message, "error")


class _ForwardErrors(logging.Handler):
    """Errors that the checker logs (internal analysis errors, with their traceback)
    reach the client's log, and tell the server to keep the document's diagnostics."""

    def __init__(self, server: AutogradLintServer):
        super().__init__(logging.ERROR)
        self.server = server
        self.loop_thread = threading.current_thread()

    def emit(self, record: logging.LogRecord) -> None:
        if threading.current_thread() is not self.loop_thread:
            return  # only the event loop thread may write to the client
        with contextlib.suppress(Exception):  # logging must never raise into the analysis
            self.server.on_analysis_error(self.format(record))


def create_server() -> AutogradLintServer:
    from ..fixes import lsp_actions
    from . import confirm, features, notebooks

    server = AutogradLintServer()
    features.register(server)
    lsp_actions.register(server)  # quick fixes and fix-all (textDocument/codeAction)
    confirm.register(server)  # runtime confirmation: command, code action, code lens
    notebooks.register(server)  # notebookDocument/* (cells answered by features' handlers)
    return server


def main(args=None) -> int:
    """Entry point of `autograd-lint lsp`: stdio, or TCP when `args.tcp` is given."""
    server = create_server()
    server.profile = profiling.start_profile()
    server.collector.freeze_startup()
    handler = _ForwardErrors(server)
    logging.getLogger("autograd_lint").addHandler(handler)
    transport.quiet_expected_warnings()
    tcp = getattr(args, "tcp", None)  # (host, port) from the CLI, or "HOST:PORT"
    if isinstance(tcp, str):
        host, _, port = tcp.rpartition(":")
        tcp = (host or "127.0.0.1", int(port))
    if tcp:
        server.start_tcp(*tcp)
    else:
        transport.start_io(server)  # pygls' loop, with frames read within bounds
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""`workspace/diagnostic` (LSP 3.17 pull model): with `diagnosticMode: "workspace"`, the
Python files of a workspace folder are checked whether they are open or not, so a
project's findings stay in the Problems list after their files are closed (as Pylance's
workspace mode does).

VS Code asks again two seconds after every answer. A file is analysed again only when
its size or modification time changed, or the settings did; otherwise its report is
"unchanged" (the client keeps what it has). One answer spends at most BUDGET_SECONDS
analysing (the handler runs on the event loop): a large project's first reports arrive
over several answers. Open documents are left to the document pull
(`textDocument/diagnostic`), which the client prefers. Notebooks are checked only while
open. An edit to an imported module is seen in a closed importer when the importer's own
file changes, or after a restart: this mode reads files, it does not track imports.
"""

from __future__ import annotations

import itertools
import logging
import time
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from ..checker import check_source, iter_python_files
from ..workspace import Workspace, find_root
from .convert import LineIndex, to_diagnostic
from .documents import split_lines, uri_to_path
from .settings import analysis_python, effective_settings

log = logging.getLogger(__name__)
# The largest number of files one answer covers (a monorepo of vendored code must not
# stall the server); the rest wait for the next request.
MAX_FILES = 2000
# Analysis time one answer may spend (it runs on the event loop, between keystrokes): files
# not reached are left out, and come with a later answer (VS Code asks every 2 s).
BUDGET_SECONDS = 0.25


class WorkspaceReports:
    def __init__(self):
        # path -> (size, mtime_ns, settings key, result id, diagnostics)
        self._cache: dict[str, tuple] = {}
        self._ids = itertools.count(1)
        self._deadline = 0.0
        self._analysed = 0

    def report(self, ls, params: types.WorkspaceDiagnosticParams):
        previous = {p.uri: p.value for p in params.previous_result_ids or ()}
        open_paths = {d.path for d in ls.documents}
        items: list = []
        seen = 0
        self._deadline = time.perf_counter() + BUDGET_SECONDS
        self._analysed = 0
        for folder_uri in _folders(ls):
            client = ls.client_settings(folder_uri)
            if client.diagnostic_mode != "workspace" or not client.enable:
                continue
            root = Path(uri_to_path(folder_uri))
            problems: list[str] = []
            settings = effective_settings(str(root / "__init__.py"), client, problems)
            if settings is None:
                continue
            for file in iter_python_files(root, settings):
                if file.suffix != ".py" or str(file) in open_paths:
                    continue
                seen += 1
                if seen > MAX_FILES:
                    break
                report = self._file_report(ls, file, client, previous)
                if report is not None:
                    items.append(report)
        return types.WorkspaceDiagnosticReport(items=items)

    def _file_report(self, ls, file: Path, client, previous: dict):
        path = str(file)
        try:
            stat = file.stat()
        except OSError:
            return None
        problems: list[str] = []
        settings = effective_settings(path, client, problems)
        if settings is None or stat.st_size > settings.max_file_size:
            return None
        key = (stat.st_size, stat.st_mtime_ns, repr(settings), ls.encoding)
        uri = from_fs_path(path) or file.as_uri()
        cached = self._cache.get(path)
        if cached is None or cached[:4] != key:
            if self._analysed and time.perf_counter() > self._deadline:
                return None  # next time (each answer analyses at least one file)
            self._analysed += 1
            diagnostics = self._analyse(ls, file, settings, uri)
            if diagnostics is None:
                return None
            cached = (*key, str(next(self._ids)), diagnostics)
            self._cache[path] = cached
        result_id, diagnostics = cached[4], cached[5]
        if previous.get(uri) == result_id:
            return types.WorkspaceUnchangedDocumentDiagnosticReport(
                uri=uri, version=None, result_id=result_id
            )
        return types.WorkspaceFullDocumentDiagnosticReport(
            uri=uri, version=None, items=diagnostics, result_id=result_id
        )

    def _analyse(self, ls, file: Path, settings, uri: str):
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        try:
            root = find_root(file)
        except OSError:
            resolver = None
        else:  # the same project objects the open documents use (see server.project_of)
            project = ls.projects.setdefault(root, Workspace(root))
            project.use_python(analysis_python(ls.client_settings(uri)))
            resolver = project.resolve
        findings = check_source(text, str(file), settings, resolver=resolver)
        lines = LineIndex(split_lines(text), ls.encoding)
        return [
            to_diagnostic(
                finding,
                index,
                lines,
                uri,
                related_information=ls.related_information,
            )
            for index, finding in enumerate(findings)
        ]


def _folders(ls) -> list[str]:
    if not ls.protocol._workspace:
        return []
    return list(ls.workspace.folders)

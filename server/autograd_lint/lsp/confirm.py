"""Runtime confirmation in the editor: the `autograd-lint.confirm` command, its code action
and code lens, and the verdicts it leaves on the diagnostics.

The command runs the user's script (runtime/runner.py, in a child process), so it is
refused unless the document's settings enable it and the editor says the workspace is
trusted. A verdict is kept per finding, keyed by what identifies the finding apart from
its line number and message: its code, kind, columns and the text of its lines. Editing
any of those lines (or anything that changes the finding) drops the verdict at the next
analysis; lines inserted above keep it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from ..analysis.model import Finding, Span
from ..fixes.lsp_actions import wanted_kind
from ..rules import CONFIRMABLE  # the same codes as the command line's --confirm
from . import confirm_hover
from .convert import SOURCE, LineIndex, to_diagnostic
from .documents import Document

if TYPE_CHECKING:
    from ..runtime.verdict import RuntimeOptions, RuntimeVerdict

CONFIRM_COMMAND = "autograd-lint.confirm"
DISCOVER_TITLE = "Run at runtime: find failing backwards"
# The findings a run answers: those it can stop (CONFIRMABLE) and growth it measures.
RUN_CODES = CONFIRMABLE | frozenset({"AG003", "AG004"})  # runtime.matching.GROWTH_CODES
CREATE_PROGRESS_TIMEOUT_SECONDS = 5.0
# The runtime's runner and warm children are imported by the first run or warm start, not
# with the server (about 20 ms of its start-up, for what most sessions never use).
WARM_MODULE = f"{__package__.rpartition('.')[0]}.runtime.warm"


def verdict_key(finding: Finding, lines: LineIndex) -> tuple:
    span = finding.span
    return (finding.code, finding.kind, span.start.column, span.end.column, lines.texts(finding))


def with_verdict(diagnostic: types.Diagnostic, verdict: RuntimeVerdict) -> types.Diagnostic:
    from ..runtime.verdict import format_verdict

    message = f"{diagnostic.message}\n({format_verdict(verdict)})"
    if verdict.status == "not-reproduced":
        return attrs.evolve(
            diagnostic, message=message, severity=types.DiagnosticSeverity.Information
        )
    return attrs.evolve(diagnostic, message=message)


def _result(ok: bool, reason_or_detail: str, **extra) -> dict:
    key = "detail" if ok else "reason"
    return {"ok": ok, key: reason_or_detail, **extra}


class Confirmations:
    """The verdicts of one server, and its runs in progress (one per document)."""

    def __init__(self, server):
        self.server = server
        self._verdicts: dict[str, dict[tuple, RuntimeVerdict]] = {}
        # Failing backwards only a run found, per document: (finding, verdict, line texts);
        # shown until one of the lines they point at changes.
        self._found: dict[str, list[tuple[Finding, RuntimeVerdict, tuple]]] = {}
        self._running: dict[str, asyncio.Task] = {}
        self._enabled = self._enabled_scopes()

    # -- verdicts on diagnostics ------------------------------------------------------------

    def decorate(
        self,
        document: Document,
        findings: Sequence[Finding],
        lines: LineIndex,
        diagnostics: list[types.Diagnostic],
    ) -> list[types.Diagnostic]:
        """The diagnostics (one per finding, in order) with their verdicts; verdicts whose
        finding is gone are forgotten."""
        stored = self._verdicts.get(document.uri)
        if stored:
            keys = [verdict_key(finding, lines) for finding in findings]
            self._verdicts[document.uri] = {key: stored[key] for key in keys if key in stored}
            diagnostics = [
                diagnostic if key not in stored else with_verdict(diagnostic, stored[key])
                for key, diagnostic in zip(keys, diagnostics, strict=True)
            ]
        found = [f for f in self._found.get(document.uri, []) if lines.texts(f[0]) == f[2]]
        if not found:
            self._found.pop(document.uri, None)
            return diagnostics
        self._found[document.uri] = found
        related = self.server.related_information
        # index -1: no finding of the analysis's list, so no quick fix is looked up for it.
        return diagnostics + [
            with_verdict(
                to_diagnostic(finding, -1, lines, document.uri, related_information=related),
                verdict,
            )
            for finding, verdict, _ in found
        ]

    def verdicts_at(self, uri: str, where: types.Position) -> list[RuntimeVerdict]:
        """The verdicts of the findings under a client position (for the hover)."""
        document = self.server.documents.get(uri)
        if document is None or not document.is_python:
            return []
        lines = document.line_index(self.server.encoding)
        position = lines.from_client(where)
        stored = self._verdicts.get(uri) or {}
        found = [
            stored.get(verdict_key(finding, lines))
            for finding in document.findings
            if finding.span.contains(position.line, position.column)
        ]
        found += [
            verdict
            for finding, verdict, _ in self._found.get(uri, [])
            if finding.span.contains(position.line, position.column)
        ]
        return [verdict for verdict in found if verdict is not None]

    def record(self, uri: str, key: tuple, verdict: RuntimeVerdict) -> None:
        self._verdicts.setdefault(uri, {})[key] = verdict

    def settings_changed(self) -> None:
        # Lenses come and go with runtime.enabled: when it changes after start-up, clients
        # that can are asked to fetch them again.
        ls = self.server
        enabled = self._enabled_scopes()
        changed, self._enabled = enabled != self._enabled, enabled
        # Whatever changed (enabled, trust, interpreter), no warm child outlives it: the
        # next lens starts one again where a run is still allowed.
        warm = sys.modules.get(WARM_MODULE)  # not imported: no run has started a child
        if warm is not None:
            warm.POOL.close()
        workspace = getattr(ls.client_capabilities, "workspace", None)
        refresh = getattr(getattr(workspace, "code_lens", None), "refresh_support", False)
        if changed and refresh and ls.settings_loaded.is_set():
            ls.workspace_code_lens_refresh(None)

    def _enabled_scopes(self) -> frozenset[str]:
        """Where runtime confirmation is on: folder URIs, "" for the global settings."""
        ls = self.server
        scopes = {uri for uri, settings in ls.folder_settings.items() if settings.runtime.enabled}
        return frozenset(scopes | ({""} if ls.global_settings.runtime.enabled else set()))

    def _republish(self, document: Document) -> None:
        ls = self.server
        if ls.documents.get(document.uri) is not document:
            return
        document.analysed_version = None
        if not ls.pull_diagnostics:
            ls.schedule(document, immediate=True)
        elif ls.diagnostic_refresh:
            ls.workspace_diagnostic_refresh(None)

    # -- the command ------------------------------------------------------------------------

    def enabled(self, uri: str) -> bool:
        return self.server.client_settings(uri).runtime.enabled

    def refused(self, uri: str) -> dict | None:
        from ..runtime.verdict import refusal

        settings = self.server.client_settings(uri)
        trusted, enabled = settings.workspace_trusted, settings.runtime.enabled
        text = refusal(enabled, trusted)
        if text is None:
            return None
        return self._no(text, "untrusted" if not trusted else "disabled")

    def options(self, uri: str) -> RuntimeOptions:
        from ..runtime.verdict import RuntimeOptions

        settings = self.server.client_settings(uri)
        runtime = settings.runtime
        # The editor's interpreter when it is one program (not e.g. `conda run ...`).
        editor_python = settings.interpreter[0] if len(settings.interpreter) == 1 else None
        return RuntimeOptions(
            python=runtime.python or editor_python or None,
            args=list(runtime.args),
            device=runtime.device,
            max_steps=runtime.max_steps,
            timeout_seconds=runtime.timeout_seconds,
            discover=True,
            warm=runtime.warm,
        )

    def prestart(self, document: Document, replace: bool = False) -> None:
        """Starts a warm child for this file's next run (runtime/warm.py), only where a
        run is allowed: enabled, trusted, the file saved as shown."""
        from ..runtime.verdict import refusal

        settings = self.server.client_settings(document.uri)
        # refusal() itself, not self.refused(): that one tells the user why, and a code-lens
        # request must not show a message.
        if refusal(settings.runtime.enabled, settings.workspace_trusted) is not None:
            return
        options = self.options(document.uri)
        if options.warm and _not_runnable(document) is None:
            from ..runtime.warm import POOL as WARM_POOL

            WARM_POOL.prestart(Path(document.path), options, replace=replace)

    async def run_command(self, *arguments) -> dict:
        request = arguments[0] if arguments and isinstance(arguments[0], dict) else {}
        uri = request.get("uri")
        if not isinstance(uri, str):
            return _result(False, "no finding", message="no finding was named")
        refused = self.refused(uri)
        if refused is not None:
            return refused
        ls = self.server
        document = ls.documents.get(uri)
        if document is None or not document.is_python:
            return self._no(f"{uri} is not an open Python document", "no finding")
        await ls.settings_loaded.wait()
        ls.analyse(document)
        if request.get("discover"):  # a training loop's lens: run it, findings or not
            from ..runtime.discovery import training_loops

            findings = [f for f in document.findings if f.code in RUN_CODES]
            if not training_loops(document.source) and not findings:
                return self._no("no training loop to run in this file", "no finding")
        else:
            findings = _matching(document.findings, request)
            if not findings:
                return self._no("no finding to confirm there", "no finding")
        problem = _not_runnable(document)
        if problem is not None:
            return self._no(problem, "not runnable")
        if uri in self._running:
            return self._no("a runtime confirmation of this file is still running", "busy")
        lines = document.line_index(ls.encoding)
        keys = [verdict_key(finding, lines) for finding in findings]
        task = asyncio.ensure_future(self._run(document, findings, request.get("discover")))
        self._running[uri] = task
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # the request itself (e.g. shutdown): stop the run
            task.cancel()
            raise
        finally:
            self._running.pop(uri, None)
        if task.cancelled():  # from the progress's cancel button
            return self._no("runtime confirmation cancelled", "cancelled", level="info")
        try:
            run = task.result()
        except Exception as error:  # the runner itself failed: say so rather than crash
            ls.log(f"runtime confirmation of {document.path} failed: {error!r}", "error")
            return self._no(f"runtime check failed: {error}", "error")
        self.prestart(document, replace=True)  # the run used up its warm child, if any
        from ..runtime.discovery import runtime_findings, without_duplicates
        from ..runtime.matching import verdict_for
        from ..runtime.verdict import format_verdict

        verdicts = [verdict_for(finding, run) for finding in findings]
        for key, verdict in zip(keys, verdicts, strict=True):
            if verdict.status != "error":
                self.record(uri, key, verdict)
        found = without_duplicates(
            runtime_findings(document.path, document.source, run, document.findings)
        )
        self._found[uri] = [(f, v, lines.texts(f)) for f, v in found]
        self._republish(document)
        first = found[0][1] if found else verdicts[0] if verdicts else run
        code = found[0][0].code if found else findings[0].code if findings else "run"
        summary = f"{code}: {format_verdict(first)}"
        if len(found) > 1:
            summary += f" (and {len(found) - 1} more found at runtime)"
        verdicts = verdicts + [v for _, v in found]
        if first.status == "error":
            ls.log(f"runtime confirmation of {document.path}: {first.stderr[-2000:]}", "messages")
            return self._no(summary, "error", verdicts=[v.to_json() for v in verdicts])
        self._tell(types.MessageType.Info, f"autograd-lint {summary}")
        return _result(True, summary, verdicts=[v.to_json() for v in verdicts])

    async def _run(self, document: Document, findings: list[Finding], discover) -> RuntimeVerdict:
        """One run of the file, every loop counted and failing backwards skipped, so that
        it answers each finding and finds what no finding predicted."""
        options = self.options(document.uri)
        what = "running the training loop" if discover else f"confirming {findings[0].code}"
        title = f"autograd-lint: {what} at runtime"
        from ..runtime.runner import confirm_async

        async with _Progress(self.server, title, options.max_steps) as progress:
            (run,) = await confirm_async(
                Path(document.path), [], options, on_event=progress.on_event
            )
            return run

    def _no(self, text: str, reason: str, level: str = "warning", **extra) -> dict:
        kind = types.MessageType.Info if level == "info" else types.MessageType.Warning
        self._tell(kind, f"autograd-lint: {text}")
        return _result(False, reason, message=text, **extra)

    def _tell(self, kind: types.MessageType, text: str) -> None:
        self.server.window_show_message(types.ShowMessageParams(type=kind, message=text))

    # -- code actions and lenses ------------------------------------------------------------

    def actions(self, uri: str, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only if params.context else None
        if not wanted_kind(types.CodeActionKind.QuickFix, only):
            return []
        if not self.enabled(uri):
            return []
        actions = []
        for diagnostic in params.context.diagnostics if params.context else []:
            code = str(diagnostic.code)
            if diagnostic.source != SOURCE or code not in CONFIRMABLE:
                continue
            actions.append(
                types.CodeAction(
                    title=f"Confirm {code} at runtime",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    command=_command(code, uri, diagnostic.range),
                )
            )
        return actions

    async def lenses(self, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        ls = self.server
        document = ls.documents.get(params.text_document.uri)
        if document is None or not document.is_python:
            return None
        await ls.settings_loaded.wait()
        if not self.enabled(document.uri):
            return None
        ls.analyse(document)
        lines = document.line_index(ls.encoding)
        lenses, seen = [], set()
        for finding in document.findings:
            anchor = (finding.loop or finding.span).start
            if finding.code not in CONFIRMABLE or (anchor.line, finding.code) in seen:
                continue
            seen.add((anchor.line, finding.code))
            lenses.append(
                types.CodeLens(
                    range=lines.range(Span(anchor, anchor)),
                    command=_command(finding.code, document.uri, lines.range(finding.span)),
                )
            )
        # A training loop no finding names: a run may still find what the analysis cannot.
        from ..runtime.discovery import training_loops

        for line in training_loops(document.source):
            if any(anchor == line for anchor, _ in seen):
                continue
            anchor = lines.range(Span.of(line, 0, line, 0))
            lenses.append(types.CodeLens(range=anchor, command=_discover_command(document.uri)))
        if lenses:  # a run may be asked for: have its interpreter ready
            self.prestart(document)
        return lenses or None


def _command(code: str, uri: str, where: types.Range) -> types.Command:
    target = {
        "uri": uri,
        "code": code,
        "range": {
            "start": {"line": where.start.line, "character": where.start.character},
            "end": {"line": where.end.line, "character": where.end.character},
        },
    }
    return types.Command(
        title=f"Confirm {code} at runtime", command=CONFIRM_COMMAND, arguments=[target]
    )


def _discover_command(uri: str) -> types.Command:
    return types.Command(
        title=DISCOVER_TITLE, command=CONFIRM_COMMAND, arguments=[{"uri": uri, "discover": True}]
    )


def _matching(findings: Sequence[Finding], request: dict) -> list[Finding]:
    """The findings the command names: its code, starting on its range's first line."""
    code = request.get("code")
    start = (request.get("range") or {}).get("start") or {}
    line = start.get("line") if isinstance(start, dict) else None
    if not isinstance(line, int):
        return []
    return [
        finding
        for finding in findings
        if finding.code == code and code in CONFIRMABLE and finding.span.start.line - 1 == line
    ]


def _not_runnable(document: Document) -> str | None:
    """Why the file on disk cannot stand in for the buffer, or None."""
    path = Path(document.path)
    if not path.is_absolute() or not path.is_file():
        return "runtime confirmation runs the file on disk: save it first"
    try:
        with open(path, encoding="utf-8", newline="") as file:
            saved = file.read()
    except (OSError, UnicodeError) as error:
        return f"cannot read {path}: {error}"
    if saved != document.source:
        return "the file has unsaved changes: save it so that the run matches what you see"
    return None


class _Progress:
    """Work-done progress for one run, when the client shows it; its cancel button
    cancels the task that awaits the run (which kills the script)."""

    def __init__(self, server, title: str, max_steps: int):
        self.server = server
        self.title = title
        self.max_steps = max(max_steps, 1)
        self.token: str | None = None
        self._loop = asyncio.get_running_loop()

    async def __aenter__(self):
        caps = self.server.client_capabilities
        if not getattr(getattr(caps, "window", None), "work_done_progress", False):
            return self
        token = f"autograd-lint-confirm-{uuid.uuid4()}"
        try:
            await asyncio.wait_for(
                self.server.work_done_progress.create_async(token),
                CREATE_PROGRESS_TIMEOUT_SECONDS,
            )
        except Exception as error:  # no progress is no reason not to run
            self.server.log(f"window/workDoneProgress/create failed: {error!r}", "error")
            return self
        self.token = token
        task = asyncio.current_task()
        cancelled = self.server.work_done_progress.tokens[token]
        cancelled.add_done_callback(lambda _: self._loop.call_soon_threadsafe(task.cancel))
        self.server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=self.title, cancellable=True, message="starting the script", percentage=0
            ),
        )
        return self

    def on_event(self, event: dict) -> None:
        """A harness event, on the runner's reader thread."""
        if self.token is not None and event.get("event") in ("start", "backward"):
            self._loop.call_soon_threadsafe(self._report, event)

    def _report(self, event: dict) -> None:
        if self.token is None:
            return
        if event["event"] == "start":
            message, percentage = f"running (torch {event.get('torch', '?')})", 0
        else:
            calls = int(event.get("call") or 0)
            message = f"backward call {calls} of {self.max_steps} (line {event.get('line')})"
            percentage = min(100, calls * 100 // self.max_steps)
        self.server.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=message, percentage=percentage)
        )

    async def __aexit__(self, kind, error, traceback):
        if self.token is None:
            return
        token, self.token = self.token, None
        message = "cancelled" if kind is asyncio.CancelledError else "done"
        with contextlib.suppress(Exception):
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        self.server.work_done_progress.tokens.pop(token, None)


def register(server) -> None:
    """The command, a code lens per confirmable finding, and a code action added to the
    ones fixes/lsp_actions.py answers (pygls takes one handler per method, so it is wrapped)."""
    confirmations = Confirmations(server)
    server.confirmations = confirmations

    async def confirm(ls, *arguments):
        return await confirmations.run_command(*arguments)

    async def code_lens(ls, params: types.CodeLensParams):
        return await confirmations.lenses(params)

    server.command(CONFIRM_COMMAND)(confirm)
    server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))(
        code_lens
    )
    features = server.protocol.fm.features
    fixes = features.get(types.TEXT_DOCUMENT_CODE_ACTION)

    async def code_actions(params: types.CodeActionParams):
        actions = list(await fixes(params) or []) if fixes is not None else []
        actions += confirmations.actions(params.text_document.uri, params)
        return actions or None

    if fixes is None:
        server.feature(types.TEXT_DOCUMENT_CODE_ACTION)(code_actions)
    else:
        features[types.TEXT_DOCUMENT_CODE_ACTION] = code_actions
    confirm_hover.register(server, confirmations)  # the figures of a run, in the hover

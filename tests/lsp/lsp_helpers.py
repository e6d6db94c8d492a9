"""Helpers for driving the real server over stdio with pytest-lsp as three editors.

`client` is parametrized over the capability sets pytest-lsp ships for VS Code (push
diagnostics, related information, UTF-16), Neovim 0.11 (pull diagnostics, offers UTF-8
first) and Emacs/eglot (push, no related information, offers UTF-32 first).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SERVER_COMMAND = [sys.executable, "-m", "autograd_lint.lsp"]
CLIENTS = {
    "vscode": "visual-studio-code",
    "neovim": "neovim@v0.11.0",
    "emacs": "emacs",
}
# Generous: the machine is shared, and the 50,000-line file takes seconds to analyse.
TIMEOUT = 120.0


class RecordingClient(LanguageClient):
    """Keeps every publishDiagnostics with its version, and the registrations."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []


def _record_publish(client: RecordingClient, params: types.PublishDiagnosticsParams):
    client.published.append(params)
    client.diagnostics[params.uri] = params.diagnostics


def _record_registration(client: RecordingClient, params: types.RegistrationParams):
    client.registrations.extend(params.registrations)


def make_client() -> RecordingClient:
    from pygls.protocol import default_converter

    client = RecordingClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_publish
    features[types.CLIENT_REGISTER_CAPABILITY] = _record_registration
    register_lsp_features(client, features)
    return client


class WarmServerConfig(ClientServerConfig):
    """Starts `python -m autograd_lint.lsp` as a fork of one warm interpreter per test
    process (tests/runtime/warm_python.py) that has imported the server's modules: a fresh
    interpreter spends ~0.7 s CPU importing them, for each of the ~150 tests that start a
    server. The forked server gets the test's stdio pipes, working directory and
    environment, and ends when its stand-in process is killed. Tests of the process itself
    (test_process, test_confirm_lifetime, test_import_cache, the editors' end-to-end
    tests) start a fresh `SERVER_COMMAND`."""

    def get_server_command(self, devtools: str | None = None) -> list[str]:
        command = super().get_server_command(devtools)
        command[-len(SERVER_COMMAND) :] = [warm_interpreter(), *SERVER_COMMAND[1:]]
        return command


_warm: list = []  # the one WarmPython of this test process, started on first use


def warm_interpreter() -> str:
    if not _warm:
        from warm_python import WarmPython

        _warm.append(WarmPython(preload=("autograd_lint.lsp.server",), torch=False))
    return str(_warm[0].shim)


def close_warm_interpreter() -> None:
    """Called at the end of the session (tests/conftest.py)."""
    while _warm:
        _warm.pop().close()


CONFIG = WarmServerConfig(server_command=SERVER_COMMAND, client_factory=make_client)


def uses_pull(client: LanguageClient) -> bool:
    return client.capabilities.text_document.diagnostic is not None


async def start(
    client: LanguageClient,
    capabilities: types.ClientCapabilities,
    workspace: Path,
    *,
    initialization_options: Any = None,
) -> types.InitializeResult:
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options=initialization_options,
        )
    )
    client.position_encoding = result.capabilities.position_encoding or "utf-16"
    return result


class Editor:
    """What a test does to one document, the same way for push and pull clients."""

    def __init__(self, client: LanguageClient, path: Path, text: str, language_id="python"):
        self.client = client
        self.path = path
        self.uri = path.as_uri()
        self.version = 1
        self.lines = text.split("\n")
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri, language_id=language_id, version=1, text=text
                )
            )
        )

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def edit(self, line: int, start: int, end: int, new_text: str) -> None:
        """Replace columns start..end (code points) of a 0-based line, as a client would."""
        encoding = self.client.position_encoding
        old = self.lines[line]
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.uri, version=self.version + 1
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line, units(old[:start], encoding)),
                            end=types.Position(line, units(old[:end], encoding)),
                        ),
                        text=new_text,
                    )
                ],
            )
        )
        self.version += 1
        self.lines[line : line + 1] = (old[:start] + new_text + old[end:]).split("\n")

    def replace_all(self, text: str) -> None:
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.uri, version=self.version + 1
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        self.version += 1
        self.lines = text.split("\n")

    def close(self) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(self.uri))
        )

    async def diagnostics(self) -> list[types.Diagnostic]:
        """The diagnostics of the current version: pulled, or the matching publish."""
        if uses_pull(self.client):
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(self.uri))
            )
            return list(report.items)
        return await wait_for_publish(self.client, self.uri, self.version)

    async def hover(self, line: int, column: int) -> types.Hover | None:
        position = types.Position(
            line, units(self.lines[line][:column], self.client.position_encoding)
        )
        return await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(self.uri), position=position
            )
        )


async def wait_for_publish(
    client, uri: str, version: int | None, *, after: int = 0
) -> list[types.Diagnostic]:
    """The latest diagnostics published for `uri` at `version` (any version when None),
    among the publishes after the first `after` ones."""

    async def matching():
        while True:
            for params in reversed(client.published[after:]):
                if params.uri == uri and (version is None or params.version == version):
                    return list(params.diagnostics)
            await asyncio.sleep(0.01)

    return await asyncio.wait_for(matching(), TIMEOUT)


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


async def eventually(client, document: Editor, predicate) -> list[types.Diagnostic]:
    """Wait until `predicate(diagnostics)` holds for the document's latest diagnostics
    (the last publish, or a fresh pull): for changes the client did not make itself."""

    async def poll():
        while True:
            if uses_pull(client):
                diagnostics = await document.diagnostics()
            else:
                diagnostics = list(client.diagnostics.get(document.uri, []))
            if predicate(diagnostics):
                return diagnostics
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), TIMEOUT)

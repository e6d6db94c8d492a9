"""Editor settings (initializationOptions, didChangeConfiguration, workspace/configuration
per folder) layered over pyproject.toml, reloaded when it changes."""

from __future__ import annotations

import asyncio

import pytest
from autograd_lint.lsp.features import STATUS_COMMAND
from lsp_helpers import CLIENTS, TIMEOUT, Editor, start, uses_pull, wait_for_publish
from lsprotocol import types
from pytest_lsp import client_capabilities

BROKEN = "def f(:\n    pass\n"
EDITORS = sorted(CLIENTS)


async def status(client, uri: str | None = None) -> dict:
    arguments = [{"uri": uri}] if uri else []
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=STATUS_COMMAND, arguments=arguments)
    )


async def changed_diagnostics(client, doc: Editor, before: list, published_before: int):
    """Diagnostics after a settings change: the next publish, or for pull clients (which
    learn nothing until they ask) the first pulled report that differs from `before`."""
    if not uses_pull(client):
        return await wait_for_publish(client, doc.uri, doc.version, after=published_before)

    async def changed():
        while (diagnostics := await doc.diagnostics()) == before:
            await asyncio.sleep(0.02)
        return diagnostics

    return await asyncio.wait_for(changed(), TIMEOUT)


@pytest.mark.parametrize("editor", EDITORS)
async def test_initialization_options_select_rules(bare_client, editor):
    options = {"autograd-lint": {"ignore": ["AG000"]}}
    await start(
        bare_client,
        client_capabilities(CLIENTS[editor]),
        bare_client.workspace,
        initialization_options=options,
    )
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    assert await doc.diagnostics() == []


@pytest.mark.parametrize("editor", EDITORS)
async def test_configuration_change_is_pulled_and_applied(bare_client, editor):
    await start(bare_client, client_capabilities(CLIENTS[editor]), bare_client.workspace)
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    before = await doc.diagnostics()
    assert [d.severity for d in before] == [types.DiagnosticSeverity.Error]

    bare_client.set_configuration({"severity": {"AG000": "warning"}}, section="autograd-lint")
    published = len(bare_client.published)
    bare_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    (after,) = await changed_diagnostics(bare_client, doc, before, published)
    assert after.severity == types.DiagnosticSeverity.Warning


async def test_pushed_configuration_for_clients_without_workspace_configuration(bare_client):
    # Neovim 0.7 cannot answer workspace/configuration: settings arrive in the notification.
    capabilities = client_capabilities("neovim@v0.7.0")
    assert not capabilities.workspace.configuration
    await start(bare_client, capabilities, bare_client.workspace)
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    assert [d.code for d in await doc.diagnostics()] == ["AG000"]
    published = len(bare_client.published)
    bare_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"autograd-lint": {"enable": False}})
    )
    assert await wait_for_publish(bare_client, doc.uri, doc.version, after=published) == []


async def test_settings_per_workspace_folder(bare_client):
    alpha, beta = bare_client.workspace / "alpha", bare_client.workspace / "beta"
    alpha.mkdir()
    beta.mkdir()
    bare_client.set_configuration(
        {"ignore": ["AG000"]}, section="autograd-lint", scope_uri=alpha.as_uri()
    )
    await bare_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(CLIENTS["vscode"]),
            workspace_folders=[
                types.WorkspaceFolder(uri=alpha.as_uri(), name="alpha"),
                types.WorkspaceFolder(uri=beta.as_uri(), name="beta"),
            ],
        )
    )
    bare_client.position_encoding = "utf-16"
    in_alpha = Editor(bare_client, alpha / "a.py", BROKEN)
    in_beta = Editor(bare_client, beta / "b.py", BROKEN)
    assert await in_alpha.diagnostics() == []
    assert [d.code for d in await in_beta.diagnostics()] == ["AG000"]

    # A folder added later gets its own settings too.
    gamma = bare_client.workspace / "gamma"
    gamma.mkdir()
    bare_client.set_configuration(
        {"enable": False}, section="autograd-lint", scope_uri=gamma.as_uri()
    )
    bare_client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=gamma.as_uri(), name="gamma")], removed=[]
            )
        )
    )

    async def gamma_settings():
        while (await status(bare_client, (gamma / "c.py").as_uri()))["clientSettings"][
            "enable"
        ] is not False:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(gamma_settings(), TIMEOUT)
    in_gamma = Editor(bare_client, gamma / "c.py", BROKEN)
    assert await in_gamma.diagnostics() == []


@pytest.mark.parametrize("editor", EDITORS)
async def test_pyproject_is_honoured_and_reloaded_when_it_changes(bare_client, editor):
    pyproject = bare_client.workspace / "pyproject.toml"
    pyproject.write_text('[tool.autograd-lint]\nignore = ["AG000"]\n', encoding="utf-8")
    await start(bare_client, client_capabilities(CLIENTS[editor]), bare_client.workspace)
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    assert await doc.diagnostics() == []

    pyproject.write_text('[tool.autograd-lint]\nseverity = { AG000 = "info" }\n', encoding="utf-8")
    published = len(bare_client.published)
    bare_client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    (diagnostic,) = await changed_diagnostics(bare_client, doc, [], published)
    assert diagnostic.severity == types.DiagnosticSeverity.Information


async def test_pyproject_exclude_covers_open_files(client):
    (client.workspace / "pyproject.toml").write_text(
        '[tool.autograd-lint]\nexclude = ["generated"]\n', encoding="utf-8"
    )
    (client.workspace / "generated").mkdir()
    excluded = Editor(client, client.workspace / "generated" / "out.py", BROKEN)
    kept = Editor(client, client.workspace / "kept.py", BROKEN)
    assert await excluded.diagnostics() == []
    assert [d.code for d in await kept.diagnostics()] == ["AG000"]


async def test_editor_settings_override_pyproject_and_runtime_is_stored(bare_client):
    (bare_client.workspace / "pyproject.toml").write_text(
        '[tool.autograd-lint]\nignore = ["AG000"]\nseverity = { AG001 = "warning" }\n',
        encoding="utf-8",
    )
    runtime = {"enabled": True, "device": "cuda:1", "python": "/usr/bin/python3",
               "args": ["--fast"], "maxSteps": 5, "timeoutSeconds": 30, "warm": False}  # fmt: skip
    options = {"ignore": [], "severity": {"AG002": "info"}, "runtime": runtime}
    await start(
        bare_client,
        client_capabilities(CLIENTS["emacs"]),
        bare_client.workspace,
        initialization_options=options,
    )
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    assert [d.code for d in await doc.diagnostics()] == ["AG000"]  # editor's ignore wins
    state = await status(bare_client, doc.uri)
    assert state["clientSettings"]["runtime"] == runtime
    # Severities merge code by code: the project's AG001 and the editor's AG002.
    assert state["checkerSettings"]["severity"] == {"AG001": "warning", "AG002": "info"}


async def test_bad_settings_are_logged_and_the_rest_still_applies(bare_client):
    options = {"ignore": ["not-a-code"], "severity": {"AG000": "warning"}, "trace": "loud"}
    await start(
        bare_client,
        client_capabilities(CLIENTS["vscode"]),
        bare_client.workspace,
        initialization_options=options,
    )
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    (diagnostic,) = await doc.diagnostics()
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    errors = [m.message for m in bare_client.log_messages if m.type == types.MessageType.Error]
    assert any("not-a-code" in m.lower() or "NOT-A-CODE" in m for m in errors)
    assert any("'trace'" in m for m in errors)


@pytest.mark.parametrize("trace, logged", [("off", False), ("verbose", True)])
async def test_trace_level_controls_the_log(bare_client, trace, logged):
    await start(
        bare_client,
        client_capabilities(CLIENTS["vscode"]),
        bare_client.workspace,
        initialization_options={"trace": trace},
    )
    doc = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    await doc.diagnostics()
    await status(bare_client)  # a round trip: every log sent before it has arrived
    analysed = [m for m in bare_client.log_messages if m.message.startswith("analysed ")]
    assert bool(analysed) == logged


async def test_set_trace_notification_turns_on_the_analysis_log(bare_client):
    await start(bare_client, client_capabilities(CLIENTS["vscode"]), bare_client.workspace)
    first = Editor(bare_client, bare_client.workspace / "a.py", BROKEN)
    await first.diagnostics()
    bare_client.protocol.notify(
        types.SET_TRACE, types.SetTraceParams(value=types.TraceValue.Verbose)
    )
    second = Editor(bare_client, bare_client.workspace / "b.py", BROKEN)
    await second.diagnostics()
    await status(bare_client)
    analysed = [m.message for m in bare_client.log_messages if m.message.startswith("analysed ")]
    assert len(analysed) == 1 and "b.py" in analysed[0]

"""diagnosticMode "workspace": `workspace/diagnostic` reports the folder's Python files that
are not open, analyses a file again only when it changed, and leaves open documents to the
document pull; in the default mode (open files only) it reports nothing."""

from __future__ import annotations

import os
import shutil

from lsp_helpers import CLIENTS, SAMPLES, Editor, start
from lsprotocol import types
from pytest_lsp import client_capabilities

BUGGY = SAMPLES / "ag001_rnn_hidden_buggy.py"
FIXED = SAMPLES / "ag001_rnn_hidden_fixed.py"


async def _pull(client, previous=()) -> dict[str, object]:
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[
                types.PreviousResultId(uri=i.uri, value=i.result_id) for i in previous
            ]
        )
    )
    return {item.uri: item for item in report.items}


async def _start(client, settings: dict) -> None:
    client.set_configuration(settings, section="autograd-lint")
    await start(
        client,
        client_capabilities(CLIENTS["vscode"]),
        client.workspace,
        initialization_options={"autograd-lint": settings},
    )


async def test_workspace_mode_reports_closed_files_and_only_changes(bare_client):
    workspace = bare_client.workspace
    shutil.copy(BUGGY, workspace / "train.py")
    shutil.copy(FIXED, workspace / "ok.py")
    venv = workspace / ".venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    shutil.copy(BUGGY, venv / "vendored.py")  # a virtual environment is never walked
    await _start(bare_client, {"diagnosticMode": "workspace"})
    train, ok = (workspace / "train.py").as_uri(), (workspace / "ok.py").as_uri()

    first = await _pull(bare_client)
    for _ in range(20):  # a busy machine may spread the first analysis over several answers
        if set(first) == {train, ok}:
            break
        first = await _pull(bare_client)
    assert set(first) == {train, ok}
    assert first[train].kind == "full" and [d.code for d in first[train].items] == ["AG001"]
    assert first[ok].kind == "full" and list(first[ok].items) == []

    # Asked again with the result ids: nothing changed, nothing is sent again.
    second = await _pull(bare_client, first.values())
    assert {item.kind for item in second.values()} == {"unchanged"}

    # A file changed on disk is analysed again.
    shutil.copy(BUGGY, workspace / "ok.py")
    stat = (workspace / "ok.py").stat()
    os.utime(workspace / "ok.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    third = await _pull(bare_client, first.values())
    assert third[ok].kind == "full" and [d.code for d in third[ok].items] == ["AG001"]
    assert third[train].kind == "unchanged"

    # An open document is the document pull's.
    doc = Editor(bare_client, workspace / "train.py", BUGGY.read_text(encoding="utf-8"))
    assert [d.code for d in await doc.diagnostics()] == ["AG001"]
    assert train not in await _pull(bare_client)


async def test_open_files_only_is_the_default(bare_client):
    shutil.copy(BUGGY, bare_client.workspace / "train.py")
    await _start(bare_client, {})
    assert await _pull(bare_client) == {}

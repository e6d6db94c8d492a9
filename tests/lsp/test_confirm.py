"""Runtime confirmation from the editor (`autograd-lint.confirm`), as VS Code drives it:
refused unless enabled and trusted; offered as a code action and a code lens; a run leaves
its verdict on the diagnostic; the progress's cancel button stops the run."""

from __future__ import annotations

import ast
import asyncio
from types import SimpleNamespace

import pytest
from autograd_lint.analysis import analyze
from autograd_lint.lsp.confirm import CONFIRM_COMMAND, Confirmations, verdict_key
from autograd_lint.lsp.convert import LineIndex, to_diagnostic
from autograd_lint.lsp.documents import Document
from autograd_lint.lsp.settings import ClientSettings
from autograd_lint.runtime.verdict import RuntimeVerdict
from lsp_helpers import CLIENTS, SAMPLES, TIMEOUT, Editor, eventually, start
from lsprotocol import types
from pytest_lsp import client_capabilities

SAMPLE = SAMPLES / "ag001_rnn_hidden_buggy.py"
# Importing torch takes long on a loaded machine; the run itself is a few steps.
RUN_TIMEOUT = 150.0


def settings(*, enabled: bool, trusted: bool, python: str | None = None) -> dict:
    runtime = {"enabled": enabled, "device": "cpu", "maxSteps": 3, "timeoutSeconds": 120}
    if python is not None:
        runtime["python"] = python
    return {"runtime": runtime, "workspaceTrusted": trusted}


async def open_sample(
    client, *, enabled: bool, trusted: bool, editor: str = "vscode", python: str | None = None
):
    """An editor's session with these settings (pulled and initial), the sample open, and its
    AG001 diagnostic."""
    options = settings(enabled=enabled, trusted=trusted, python=python)
    client.set_configuration(options, section="autograd-lint")
    capabilities = client_capabilities(CLIENTS[editor])
    await start(
        client, capabilities, client.workspace, initialization_options={"autograd-lint": options}
    )
    doc = Editor(client, SAMPLE, SAMPLE.read_text(encoding="utf-8"))
    diagnostics = await doc.diagnostics()
    (ag001,) = [d for d in diagnostics if d.code == "AG001"]
    return doc, ag001


def target(doc: Editor, diagnostic: types.Diagnostic) -> dict:
    """The argument VS Code's client sends: uri, code and the diagnostic's range."""
    start, end = diagnostic.range.start, diagnostic.range.end
    return {
        "uri": doc.uri,
        "code": diagnostic.code,
        "range": {
            "start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character},
        },
    }


async def execute(client, arguments: list) -> dict:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CONFIRM_COMMAND, arguments=arguments)
    )


async def confirm_actions(client, doc: Editor, diagnostic: types.Diagnostic) -> list[dict]:
    """The confirm code actions offered on the diagnostic, as {"title", "command"}."""
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(doc.uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    found = []
    for action in actions or []:
        command = action.command
        if isinstance(command, str):
            # lsprotocol's client side takes any action with a `command` for a bare
            # Command, and stores the nested command object's repr as its name (VS Code
            # tells them apart by the type of `command`): read it back.
            command = ast.literal_eval(command) if command.startswith("{") else None
        elif command is not None:
            command = {"command": command.command, "arguments": list(command.arguments or [])}
        if command and command["command"] == CONFIRM_COMMAND:
            found.append({"title": action.title, "command": command})
    return found


@pytest.mark.parametrize(
    ("enabled", "trusted", "reason", "text"),
    [(False, True, "disabled", "runtime.enabled"), (True, False, "untrusted", "untrusted")],
)
async def test_refused_unless_enabled_and_trusted(bare_client, enabled, trusted, reason, text):
    client = bare_client
    doc, ag001 = await open_sample(client, enabled=enabled, trusted=trusted)
    result = await asyncio.wait_for(execute(client, [target(doc, ag001)]), TIMEOUT)
    assert result["ok"] is False and result["reason"] == reason
    assert any(text in m.message for m in client.messages)
    assert not client.progress_reports  # nothing started
    offered = await confirm_actions(client, doc, ag001)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(doc.uri))
    )
    if enabled:  # untrusted but enabled: offered, and the command says why it refuses
        assert [a["title"] for a in offered] == ["Confirm AG001 at runtime"]
    else:
        assert offered == [] and not lenses


@pytest.mark.parametrize("editor", ["vscode", "neovim"])  # push, and pull with refresh
async def test_confirmed_verdict_shows_on_the_diagnostic(bare_client, editor, torch_python):
    client = bare_client
    # VS Code's run starts the server's own interpreter; Neovim's names the warm one
    # (tests/conftest.py) in `runtime.python`, as a user names theirs.
    python = torch_python if editor == "neovim" else None
    doc, ag001 = await open_sample(client, enabled=True, trusted=True, editor=editor, python=python)
    assert "confirmed at runtime" not in ag001.message
    (action,) = await confirm_actions(client, doc, ag001)
    assert action["title"] == "Confirm AG001 at runtime"
    assert action["command"]["arguments"] == [target(doc, ag001)]
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(doc.uri))
    )
    loop_line = next(i for i, line in enumerate(doc.lines) if line.startswith("for start in"))
    assert [(lens.range.start.line, lens.command.title) for lens in lenses] == [
        (loop_line, "Confirm AG001 at runtime")
    ]

    result = await asyncio.wait_for(execute(client, action["command"]["arguments"]), RUN_TIMEOUT)
    assert result["ok"] is True, result
    assert result["verdicts"][0]["status"] == "confirmed"
    assert result["verdicts"][0]["line"] == ag001.range.start.line + 1

    def shows_verdict(diagnostics):
        return any("confirmed at runtime" in d.message for d in diagnostics)

    (confirmed,) = [d for d in await eventually(client, doc, shows_verdict) if d.code == "AG001"]
    assert confirmed.message.startswith(ag001.message)
    assert "\n(confirmed at runtime: iteration 2 on cpu" in confirmed.message
    assert confirmed.severity == types.DiagnosticSeverity.Error
    (reports,) = client.progress_reports.values()
    assert reports[0].kind == "begin" and reports[-1].kind == "end"
    assert any("backward call" in (r.message or "") for r in reports if r.kind == "report")

    # Lines inserted above keep the verdict; editing the finding's line drops it.
    doc.edit(0, 0, 0, "# a comment\n")
    (kept,) = [d for d in await doc.diagnostics() if d.code == "AG001"]
    assert "confirmed at runtime" in kept.message
    backward = next(i for i, line in enumerate(doc.lines) if "loss.backward()" in line)
    doc.edit(backward, len(doc.lines[backward]), len(doc.lines[backward]), "  # edited")
    (dropped,) = [d for d in await doc.diagnostics() if d.code == "AG001"]
    assert "confirmed at runtime" not in dropped.message


async def test_progress_cancel_stops_the_run(bare_client):
    client = bare_client
    doc, ag001 = await open_sample(client, enabled=True, trusted=True)
    running = asyncio.ensure_future(execute(client, [target(doc, ag001)]))

    async def begun():
        while True:
            for token, reports in client.progress_reports.items():
                if any(r.kind == "begin" for r in reports):
                    return token
            await asyncio.sleep(0.01)

    token = await asyncio.wait_for(begun(), TIMEOUT)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(running, RUN_TIMEOUT)
    assert result == {"ok": False, "reason": "cancelled", "message": result["message"]}
    assert client.progress_reports[token][-1].kind == "end"
    assert client.progress_reports[token][-1].message == "cancelled"


def test_not_reproduced_downgrades_to_information():
    # In-process: no script here reports "not reproduced" for a real finding it flags.

    text = SAMPLE.read_text(encoding="utf-8")
    document = Document(uri=SAMPLE.as_uri(), language_id="python", version=1, text=text)
    findings = analyze(text, str(SAMPLE))
    lines = LineIndex(document.lines, "utf-16")
    diagnostics = [
        to_diagnostic(f, i, lines, document.uri, related_information=True)
        for i, f in enumerate(findings)
    ]
    (index,) = [i for i, f in enumerate(findings) if f.code == "AG001"]
    assert diagnostics[index].severity == types.DiagnosticSeverity.Error
    verdicts = Confirmations(SimpleNamespace(global_settings=ClientSettings(), folder_settings={}))
    verdict = RuntimeVerdict("not-reproduced", device="cpu", backward_calls=3)
    verdicts.record(document.uri, verdict_key(findings[index], lines), verdict)

    shown = verdicts.decorate(document, findings, lines, diagnostics)
    assert shown[index].severity == types.DiagnosticSeverity.Information
    assert shown[index].message == diagnostics[index].message + "\n(not reproduced in 3 steps)"
    assert diagnostics[index].severity == types.DiagnosticSeverity.Error  # not changed in place

    # Once the finding is gone the verdict is forgotten: it does not come back with it.
    assert verdicts.decorate(document, [], lines, []) == []
    assert verdicts.decorate(document, findings, lines, diagnostics) == diagnostics


def test_the_codes_a_run_answers_are_the_runtimes_own():
    # lsp/confirm.py spells the growth codes out so as not to import the runtime at start-up:
    # they must stay the ones the runtime measures.
    from autograd_lint.lsp.confirm import RUN_CODES
    from autograd_lint.rules import CONFIRMABLE
    from autograd_lint.runtime.matching import GROWTH_CODES

    assert RUN_CODES == CONFIRMABLE | GROWTH_CODES

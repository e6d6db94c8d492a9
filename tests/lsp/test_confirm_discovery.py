"""Runtime discovery from the editor: a training loop no finding names gets a code lens;
running it shows the failing backward the analysis missed as a diagnostic of its own,
"found at runtime", until one of the lines it points at changes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from autograd_lint.lsp.confirm import CONFIRM_COMMAND, DISCOVER_TITLE
from lsp_helpers import CLIENTS, TIMEOUT, Editor, eventually, start
from lsprotocol import types
from pytest_lsp import client_capabilities

DISCOVERY = Path(__file__).resolve().parents[1] / "runtime" / "scripts" / "discovery"
SCRIPT = DISCOVERY / "opaque_cache_buggy.py"
RUN_TIMEOUT = 150.0  # importing torch takes long on a loaded machine


async def open_script(client, *, enabled: bool, script: Path = SCRIPT) -> Editor:
    runtime = {"enabled": enabled, "device": "cpu", "maxSteps": 4, "timeoutSeconds": 120}
    options = {"runtime": runtime, "workspaceTrusted": True}
    client.set_configuration(options, section="autograd-lint")
    capabilities = client_capabilities(CLIENTS["vscode"])
    await start(
        client, capabilities, client.workspace, initialization_options={"autograd-lint": options}
    )
    # A copy in the test's workspace: the repository's config excludes tests/runtime/scripts.
    copy = client.workspace / script.name
    copy.write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    return Editor(client, copy, copy.read_text(encoding="utf-8"))


async def lenses(client, doc: Editor) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(doc.uri))
    )
    return found or []


async def run_lens(client, lens: types.CodeLens) -> dict:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=lens.command.command, arguments=lens.command.arguments
            )
        ),
        RUN_TIMEOUT,
    )


async def test_no_lens_and_no_run_unless_enabled(bare_client):
    client = bare_client
    doc = await open_script(client, enabled=False)
    assert await doc.diagnostics() == []  # the analysis does not see the cache
    assert await lenses(client, doc) == []
    result = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=CONFIRM_COMMAND, arguments=[{"uri": doc.uri, "discover": True}]
            )
        ),
        TIMEOUT,
    )
    assert result["ok"] is False and result["reason"] == "disabled"


async def test_a_training_loop_lens_runs_the_file_and_shows_what_it_found(bare_client):
    client = bare_client
    doc = await open_script(client, enabled=True)
    assert await doc.diagnostics() == []
    loop = next(i for i, line in enumerate(doc.lines) if line.startswith("for _step in"))
    (lens,) = await lenses(client, doc)
    assert (lens.range.start.line, lens.command.title) == (loop, DISCOVER_TITLE)
    result = await run_lens(client, lens)
    assert result["ok"] is True, result
    failing = next(i for i, line in enumerate(doc.lines) if "# fails" in line)

    def found_at_runtime(diagnostics):
        return any("found at runtime" in d.message for d in diagnostics)

    (found,) = await eventually(client, doc, found_at_runtime)
    assert (found.code, found.range.start.line) == ("AG001", failing)
    assert "\n(confirmed at runtime: iteration 2 on cpu" in found.message
    built = next(i for i, line in enumerate(doc.lines) if "# built" in line)
    assert built in {info.location.range.start.line for info in found.related_information}
    hover = await doc.hover(failing, 6)
    assert "**At runtime:** confirmed at runtime: iteration 2 on cpu" in hover.contents.value

    # Editing the failing line drops it: the run said nothing about the new text.
    doc.edit(failing, len(doc.lines[failing]), len(doc.lines[failing]), "  # edited")
    assert await doc.diagnostics() == []


async def test_the_hover_shows_a_growing_graph_per_step_with_a_chart(bare_client):
    client = bare_client
    script = DISCOVERY / "logged_graph_growing.py"
    doc = await open_script(client, enabled=True, script=script)
    (ag003,) = await doc.diagnostics()
    (lens,) = await lenses(client, doc)  # the loop's: AG003 is measured, not stopped
    assert (await run_lens(client, lens))["ok"] is True

    def measured(diagnostics):
        return any("grows by" in d.message for d in diagnostics)

    (grown,) = await eventually(client, doc, measured)
    assert "keeps alive grows by 2 nodes and 32 bytes of saved tensors per step" in grown.message
    start = ag003.range.start
    value = (await doc.hover(start.line, start.character + 1)).contents.value
    assert "| call | line | nodes walked | saved bytes | nodes kept | kept bytes |" in value
    assert "![graph size per step](data:image/svg+xml;base64," in value

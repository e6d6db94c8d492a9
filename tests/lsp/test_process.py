"""The server as a process: `autograd-lint lsp` over stdio, `--tcp`, and no torch import."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from autograd_lint.lsp.features import STATUS_COMMAND
from lsp_helpers import SAMPLES, Editor
from lsprotocol import types

CLI = Path(sys.executable).with_name("autograd-lint")


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream) -> dict:
    length = None
    while True:
        header = stream.readline()
        assert header, "the server closed the connection"
        if header.startswith(b"Content-Length:"):
            length = int(header.split(b":")[1])
        if header in (b"\r\n", b"\n") and length is not None:
            return json.loads(stream.read(length))


def _initialize_and_exit(write, read) -> dict:
    write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"processId": None, "rootUri": None, "capabilities": {}}}))  # fmt: skip
    while "id" not in (response := read()):
        pass
    write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None}))
    write(_frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
    return response


def test_cli_lsp_over_stdio():
    server = subprocess.Popen(
        [str(CLI), "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )

    def write(data: bytes) -> None:
        server.stdin.write(data)
        server.stdin.flush()

    try:
        response = _initialize_and_exit(write, lambda: _read_message(server.stdout))
        assert server.wait(timeout=30) == 0
    finally:
        server.kill()
    assert response["result"]["serverInfo"]["name"] == "autograd-lint"
    assert response["result"]["capabilities"]["positionEncoding"] == "utf-16"


def test_tcp_transport():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "autograd_lint.lsp", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.05)
        with connection, connection.makefile("rb") as incoming:
            response = _initialize_and_exit(connection.sendall, lambda: _read_message(incoming))
        assert "hoverProvider" in response["result"]["capabilities"]
    finally:
        server.kill()
        server.wait(timeout=30)


async def test_torch_is_never_imported(client):
    text = (SAMPLES / "ag001_rnn_hidden_buggy.py").read_text(encoding="utf-8")
    assert "import torch" in text
    doc = Editor(client, client.workspace / "train.py", text)
    assert any(d.code == "AG001" for d in await doc.diagnostics())
    await doc.hover(0, 0)
    state = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=STATUS_COMMAND, arguments=[])
    )
    assert state["torchLoaded"] is False
    assert "torch" not in state["modules"] and "numpy" not in state["modules"]
    assert "autograd_lint" in state["modules"]  # the list is real


def test_server_startup_imports_no_torch():
    # -X importtime lists every module the server's import chain loads.
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import autograd_lint.lsp.server"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert "autograd_lint.lsp.server" in imported
    assert not any(name == "torch" or name.startswith("torch.") for name in imported)


def test_server_startup_leaves_the_runtime_and_notebooks_for_their_first_use():
    # Runtime confirmation is opt-in and notebooks are opened by few sessions: their modules
    # (and `statistics`, which the runtime's growth measure needs) are imported when first
    # used, not in the ~20-40 ms of every start-up.
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from autograd_lint.lsp import server; "
         "server.create_server(); print('\\n'.join(sorted(sys.modules)))"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    imported = set(run.stdout.split())
    assert "autograd_lint.lsp.confirm" in imported  # the list is real: registered, not run
    assert "autograd_lint.lsp.notebooks" in imported
    late = ("autograd_lint.runtime", "autograd_lint.notebook.", "statistics")
    assert not sorted(name for name in imported if name.startswith(late))

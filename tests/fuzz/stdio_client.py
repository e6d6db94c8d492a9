"""A raw JSON-RPC client over the real server's stdio: it can send anything, bytes included.

pytest-lsp speaks only well-formed LSP; a fuzzer needs to write broken frames too. A
thread reads the server's stdout into messages (answering the server's own requests with
nothing), another drains stderr, so neither pipe can fill up and stall the server.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

SERVER = [sys.executable, "-m", "autograd_lint.lsp"]
CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
        "hover": {"contentFormat": ["markdown"]},
    },
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class ServerGone(Exception):
    """The server exited (a crash, unless we asked it to)."""


class StdioServer:
    """`command` starts the server (default: this interpreter's `-m autograd_lint.lsp`); the
    docs tests pass the command a page documents."""

    def __init__(self, root: Path, env: dict | None = None, command: list[str] | None = None):
        self.root = root
        self.settings: dict = {}
        self.process = subprocess.Popen(
            command or SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=root,
            env={**os.environ, **(env or {})},
        )
        self.ids = itertools.count(1)
        self.lock = threading.Condition()
        self.responses: dict[int, dict] = {}
        self.published: dict[str, dict] = {}  # uri -> the latest publishDiagnostics params
        self.stderr_tail: deque[bytes] = deque(maxlen=200)
        self.notifications: deque[tuple[str, object]] = deque(maxlen=500)  # the others
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # -- writing ----------------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise ServerGone(str(exc)) from exc

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def send_request(self, method: str, params) -> int:
        """Send a request without waiting; its id."""
        request_id = next(self.ids)
        self.send({"id": request_id, "method": method, "params": params})
        return request_id

    def request(self, method: str, params, timeout: float = 60.0) -> dict:
        """The response message (with "result" or "error"); TimeoutError on a hang."""
        request_id = self.send_request(method, params)
        return self.wait(lambda: self.responses.pop(request_id, None), timeout)

    def wait(self, found, timeout: float):
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                value = found()
                if value is not None:
                    return value
                if self.process.poll() is not None:
                    raise ServerGone(f"exit status {self.process.returncode}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no answer from the server")
                self.lock.wait(min(left, 0.5))

    def diagnostics(self, uri: str, version: int, timeout: float = 60.0) -> list[dict]:
        def latest():
            params = self.published.get(uri)
            if params is not None and params.get("version") == version:
                return params["diagnostics"]
            return None

        return self.wait(latest, timeout)

    # -- the LSP life cycle -----------------------------------------------------------------
    def initialize(self, settings: dict | None = None, **params) -> dict:
        """`settings` answers workspace/configuration; `params` go into the request
        (initialization_options=... as initializationOptions)."""
        self.settings = settings or {}
        capabilities = {**CAPABILITIES, **getattr(self, "capabilities_extra", {})}
        response = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.root.as_uri(),
                "capabilities": capabilities,
                "workspaceFolders": [{"uri": self.root.as_uri(), "name": "w"}],
                **{_camel(k): v for k, v in params.items()},
            },
        )
        self.notify("initialized", {})
        return response

    def open(self, uri: str, text: str, version: int = 1) -> None:
        document = {"uri": uri, "languageId": "python", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})

    def alive(self) -> bool:
        return self.process.poll() is None

    def children(self) -> list[int]:
        """Processes the server started (Linux: from /proc)."""
        found = []
        task_dir = Path(f"/proc/{self.process.pid}/task")
        try:
            for task in task_dir.iterdir():
                text = (task / "children").read_text()
                found.extend(int(pid) for pid in text.split())
        except OSError:
            pass
        return found

    def close(self, timeout: float = 10.0) -> int | None:
        if self.alive():
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
                self.process.stdin.close()
            except (ServerGone, TimeoutError, OSError):
                pass
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    # -- reading ----------------------------------------------------------------------------
    def _read(self) -> None:
        stdout = self.process.stdout
        while True:
            length = None
            while True:
                header = stdout.readline()
                if header in (b"\r\n", b""):
                    break
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if header == b"" or length is None:
                break
            message = json.loads(stdout.read(length))
            with self.lock:
                self._handle(message)
                self.lock.notify_all()
        with self.lock:
            self.lock.notify_all()

    def _handle(self, message: dict) -> None:
        if "id" in message and "method" not in message:
            self.responses[message["id"]] = message
        elif message.get("method") == "textDocument/publishDiagnostics":
            self.published[message["params"]["uri"]] = message["params"]
        elif "id" in message:  # a request from the server
            self.notifications.append((message.get("method"), message.get("params")))
            result = None
            if message.get("method") == "workspace/configuration":
                items = message.get("params", {}).get("items", [])
                result = [self.configuration(item) for item in items]
            self.send({"id": message["id"], "result": result})
        else:
            self.notifications.append((message.get("method"), message.get("params")))

    def configuration(self, item: dict):
        """The answer to one workspace/configuration item: the settings initialize was given,
        whatever the item's section (an editor that answers per section overrides this)."""
        return self.settings

    def logged(self) -> str:
        """What the server logged to the client (window/logMessage, showMessage)."""
        with self.lock:
            return "\n".join(
                str(params.get("message", "")) for method, params in self.notifications
                if method in ("window/logMessage", "window/showMessage") and params
            )  # fmt: skip

    def _drain_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr_tail.append(line)

"""A fuzzing LSP client: random incremental edits and junk messages against the real server.

After every burst of edits the edited document's diagnostics (incremental: the server's
cache saw every edit) are compared with those of the same text opened as a new document
(fresh), the server must answer in time (else a hang) and be alive (else a crash), and it
must have started no process (nothing runs without opt-in). A dead or hung server is
counted and replaced. `tests/fuzz/test_fuzz.py` runs it briefly; `bench/fuzz.py` for
minutes.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from stdio_client import ServerGone, StdioServer

ROOT = Path(__file__).resolve().parent.parent.parent
SOURCES = sorted((ROOT / "samples").glob("*.py")) + sorted((ROOT / "tests" / "corpus").glob("*.py"))
BREAK = re.compile(r"\r\n|\r|\n")
# What edits insert: code that opens and closes strings and brackets, deep nesting, junk
# unicode (astral, combining, a line separator LSP does not count, form feed, NUL).
TOKENS = [
    '"""', "'''", '"', "(", ")", "[", "]", "{", "}", ":", "\n", "\n    ", "\n\n", "\r\n", "\r",
    "\t", "\\", "#", "def f(", "class C:", "x = ", "for i in range(3):\n    ",
    "loss.backward()\n", ".detach()", "    total = total + loss\n", "@", "else:", "é", "😀",
    "e\u0301", "\u2028", "\x0c", "\x00", "\ufeff", "((((((((((", ".exp()" * 40,
    " + loss" * 60, "torch.relu(" * 30,
]  # fmt: skip
CONFIRM = "autograd-lint.confirm"


@dataclass
class Counts:
    edits: int = 0
    bursts: int = 0
    junk: int = 0
    crashes: int = 0
    hangs: int = 0
    mismatches: int = 0
    spawned: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"edits applied {self.edits}, bursts {self.bursts}, junk messages {self.junk}, "
            f"crashes {self.crashes}, hangs {self.hangs}, "
            f"incremental-vs-fresh mismatches {self.mismatches}, processes spawned {self.spawned}"
        )


def utf16_position(text: str, offset: int) -> dict:
    """The LSP position (UTF-16 columns, \\n, \\r\\n and \\r as line ends) of an offset."""
    line, start = 0, 0
    for match in BREAK.finditer(text, 0, offset):
        if match.end() > offset:
            break
        line, start = line + 1, match.end()
    prefix = text[start:offset]
    return {"line": line, "character": len(prefix.encode("utf-16-le")) // 2}


def _safe(text: str, offset: int) -> int:
    """An offset that does not split a \\r\\n (where LSP positions are ambiguous)."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset + 1
    return offset


def normalized(diagnostics: list[dict]) -> list:
    return sorted(
        json.dumps([d["range"], d.get("code"), d.get("severity"), d["message"]])
        for d in diagnostics
    )


class Fuzzer:
    def __init__(self, workspace: Path, seed: int, timeout: float = 60.0, sources=SOURCES):
        self.workspace = workspace
        self.rng = random.Random(seed)
        self.timeout = timeout  # an answer later than this is a hang
        self.sources = list(sources)
        self.counts = Counts()
        self.fresh_ids = 0
        self.server: StdioServer | None = None

    # -- the server -------------------------------------------------------------------------
    def _start(self) -> StdioServer:
        server = StdioServer(self.workspace)
        server.initialize()
        return server

    def _replace_server(self, why: str, text: str) -> None:
        self.counts.problems.append(f"{why}: {text[:2000]!r}")
        if self.server is not None:
            tail = b"".join(self.server.stderr_tail)[-2000:]
            self.counts.problems.append(f"server stderr: {tail!r}")
            self.server.process.kill()
        self.server = self._start()

    # -- one run ----------------------------------------------------------------------------
    def run(self, seconds: float) -> Counts:
        deadline = time.monotonic() + seconds
        self.server = self._start()
        try:
            while time.monotonic() < deadline:
                self.document(deadline)
        finally:
            self.server.close()
        return self.counts

    def document(self, deadline: float) -> None:
        """Edit one source in bursts until the deadline or for a while."""
        source = self.rng.choice(self.sources)
        text = source.read_text(encoding="utf-8", errors="replace")
        uri = (self.workspace / f"edited_{self.rng.randrange(10**9)}.py").as_uri()
        version = 1
        self.server.open(uri, text, version)
        for _ in range(self.rng.randrange(3, 12)):
            if time.monotonic() >= deadline:
                break
            for _ in range(self.rng.randrange(1, 8)):
                text, change = self.edit(text)
                version += 1
                self.server.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [change],
                    },
                )
                self.counts.edits += 1
            if self.rng.random() < 0.3:
                self.junk()
            if not self.check(uri, version, text):
                return  # the server was replaced: a new document
        self.server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def edit(self, text: str) -> tuple[str, dict]:
        rng = self.rng
        start = _safe(text, rng.randrange(len(text) + 1))
        kind = rng.random()
        if kind < 0.55:
            end, new = start, rng.choice(TOKENS)
        elif kind < 0.85:
            end, new = _safe(text, min(len(text), start + rng.randrange(1, 60))), ""
        else:  # move a piece of the file elsewhere (a paste)
            end = start
            a = rng.randrange(len(text) + 1)
            new = text[a : a + rng.randrange(1, 300)]
        change = {
            "range": {"start": utf16_position(text, start), "end": utf16_position(text, end)},
            "text": new,
        }
        return text[:start] + new + text[end:], change

    def junk(self) -> None:
        """One hostile message: broken JSON-RPC, a lying frame, an odd request."""
        server, rng = self.server, self.rng
        self.counts.junk += 1
        choice = rng.randrange(9)
        if choice == 0:
            server.send_raw(b"Content-Length: 7\r\n\r\n{not js")
        elif choice == 1:
            length = rng.choice([b"1000000000000", b"-3", b"9223372036854775808", b"0", b"x"])
            server.send_raw(b"Content-Length: " + length + b"\r\n\r\n" + b'{"id": 1}')
        elif choice == 2:
            server.send_raw(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
            server.send_raw(b"\r\n\r\n")
        elif choice == 3:
            server.notify("textDocument/didChange", {"textDocument": {"uri": 7}, "x": None})
        elif choice == 4:
            server.send_request("textDocument/hover", {"position": {"line": -1}})
        elif choice == 5:
            server.send_request("autograd-lint/unknown", [1, 2, {"a": "\ud800"[:0]}])
        elif choice == 6:  # confirmation is not enabled here: it must be refused, not run
            server.send_request(
                "workspace/executeCommand", {"command": CONFIRM, "arguments": [{"uri": 1}]}
            )
        elif choice == 7:
            depth = rng.randrange(10, 3000)
            body = b'{"jsonrpc": "2.0", "method": "x", "params": ' + b"[" * depth + b"]" * depth
            server.send_raw(b"Content-Length: %d\r\n\r\n%s}" % (len(body) + 1, body))
        else:
            server.send_raw(b"Content-Length: 10\r\n\r\n" + b'{"jsonrpc": "2.0", "method": "y"}')

    def check(self, uri: str, version: int, text: str) -> bool:
        """Compare incremental with fresh; False when the server had to be replaced."""
        self.counts.bursts += 1
        try:
            incremental = self.server.diagnostics(uri, version, self.timeout)
            self.fresh_ids += 1
            fresh_uri = (self.workspace / f"fresh_{self.fresh_ids}.py").as_uri()
            self.server.open(fresh_uri, text)
            fresh = self.server.diagnostics(fresh_uri, 1, self.timeout)
            self.server.notify("textDocument/didClose", {"textDocument": {"uri": fresh_uri}})
        except ServerGone:
            self.counts.crashes += 1
            self._replace_server("crash", text)
            return False
        except TimeoutError:
            self.counts.hangs += 1
            self._replace_server("hang", text)
            return False
        if normalized(incremental) != normalized(fresh):
            self.counts.mismatches += 1
            self.counts.problems.append(f"mismatch: {text[:4000]!r}")
        if self.server.children():
            self.counts.spawned += 1
            self.counts.problems.append(f"spawned: {self.server.children()}")
        return True

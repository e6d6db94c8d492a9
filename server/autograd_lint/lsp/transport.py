"""Reading JSON-RPC frames from stdin without trusting their headers.

pygls' reader takes `Content-Length` at its word: 10**12 asks `read` for a terabyte
(MemoryError), 2**63 overflows, and a negative or short length leaves the reader inside
a body, reading JSON as headers, for good. This loop bounds every read (a header line, a
body), rejects a frame whose length is not a number within bounds with a logged error,
and finds its footing again at the next `Content-Length:` header wherever it starts (a
body written without a newline runs into the next header line).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import BinaryIO

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024 * 1024  # a 5,000-line file opened is about 200 kB
MAX_HEADER_LINE = 8192  # longer "lines" are read (and dropped) in pieces of this size
HEADER = b"content-length:"


class BoundedReader:
    """stdin, never read for more than asked; `executor` runs the frame reader's blocking
    reads off the event loop."""

    def __init__(self, stdin: BinaryIO, executor=None):
        self.stdin = stdin
        self.executor = executor

    def readline(self, limit: int) -> bytes:
        return self.stdin.readline(limit)

    def read(self, n: int) -> bytes:
        return self.stdin.read(n)


class FrameReader:
    """Splits the byte stream into message bodies; `next_body()` is None at the end.

    It blocks: `serve` runs each `next_body()` whole in a worker thread, one hand-over to
    the event loop per message (a hand-over per header line and body cost a keystroke
    a thread switch each, which a busy machine makes wait). What it rejects is kept in
    `notes` for the event loop to log (only that thread may write to the client)."""

    def __init__(self, reader):
        self.reader = reader
        self.pending: bytes | None = None  # a header line found inside a junk line
        self.rejected = 0  # frames dropped, for tests and logs
        self.notes: list[str] = []

    def _line(self) -> bytes:
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        return self.reader.readline(MAX_HEADER_LINE)

    def next_body(self) -> bytes | None:
        while True:
            length = self._headers()
            if length is None:
                return None
            if length < 0:
                continue  # rejected: look for the next header
            body = self._read_exactly(length)
            if body is None:
                return None
            return body

    def _headers(self) -> int | None:
        """The frame's length; -1 for a rejected frame; None at the end of input."""
        length: int | None = None
        invalid = False
        seen_header = False
        tail = b""  # the end of the previous piece, where a header may have started
        while True:
            line = self._line()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if not seen_header:
                    continue  # blank lines between frames are harmless
                if invalid or length is None:
                    self._reject("a frame without a valid Content-Length")
                    return -1
                return length
            name, colon, value = line.partition(b":")
            if colon and name.strip().lower() == b"content-length" and not seen_header:
                seen_header = True
                text = value.strip()
                if text.isdigit() and len(text) <= 12 and 0 < int(text) <= MAX_BODY_BYTES:
                    length = int(text)
                else:
                    invalid = True
                    self._reject(f"Content-Length {text[:40]!r} (at most {MAX_BODY_BYTES})")
                continue
            if colon and seen_header and line.endswith(b"\n"):
                continue  # another header (Content-Type): ignored, as pygls does
            # Not a header: junk, or the rest of a body whose length was wrong. A header
            # may begin inside it (a body is not followed by a newline).
            found = (tail + line).lower().find(HEADER)
            if found >= 0:
                self.pending = (tail + line)[found:]
                if seen_header:
                    self._reject("a frame cut short by the next one")
                    return -1
                tail = b""
                continue
            tail = line[-len(HEADER) :] if not line.endswith(b"\n") else b""
            if seen_header:
                self._reject("a frame with an unreadable header")
                return -1

    def _read_exactly(self, length: int) -> bytes | None:
        chunks, size = [], 0
        while size < length:
            chunk = self.reader.read(length - size)
            if not chunk:
                return None
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)

    def _reject(self, what: str) -> None:
        self.rejected += 1
        self.notes.append(f"autograd-lint: rejected {what}; reading on from the next header")


async def serve(stop_event: threading.Event, reader, protocol, error_handler=None) -> None:
    frames = FrameReader(reader)
    loop = asyncio.get_running_loop()
    while not stop_event.is_set():
        body = await loop.run_in_executor(reader.executor, frames.next_body)
        while frames.notes:
            log.error("%s", frames.notes.pop(0))
        if body is None:
            break
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
        except Exception as exc:  # noqa: BLE001 - not JSON, nested too deep, not a message
            log.error("autograd-lint: dropped an unreadable message: %r", exc)
            continue
        try:
            protocol.handle_message(message)
        except Exception as exc:  # noqa: BLE001 - as pygls' loop: one message, not the server
            log.exception("Unable to handle message")
            if error_handler:
                error_handler(exc, JsonRpcException)


def start_io(server, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """pygls' `start_io`, with the bounded frame reader."""
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    reader = BoundedReader(stdin or sys.stdin.buffer, server.thread_pool)
    try:
        asyncio.run(serve(server._stop_event, reader, server.protocol, server.report_server_error))
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        # A runtime confirmation still running is stopped (its script's process group
        # killed) before the thread pool is waited for: exit must not wait for the script.
        # The runner is imported by the first run or warm child (lsp/confirm.py): when it
        # is not, there is nothing to stop.
        runner = sys.modules.get(f"{__package__.rpartition('.')[0]}.runtime.runner")
        if runner is not None:
            runner.stop_all()
        server.shutdown()


class _ExpectedCancels(logging.Filter):
    """pygls warns about a `$/cancelRequest` for a request it has already answered. That is
    the normal race of a client cancelling a hover or a code-action list as the cursor
    moves (VS Code does it all the time), not a problem: editors showed it as an error line
    in the server's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Cancel notification for unknown message id")


def quiet_expected_warnings() -> None:
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, _ExpectedCancels) for f in logger.filters):
        logger.addFilter(_ExpectedCancels())

"""Issue 16 item 8: frames with lying headers are rejected and the stream read on; a
second `initialize` is refused."""

from __future__ import annotations

import json

import pytest
from fuzz.stdio_client import StdioServer

BROKEN = "def f(:\n    pass\n"


@pytest.fixture
def server(tmp_path):
    server = StdioServer(tmp_path)
    yield server
    server.close()


def frame(body: bytes, length: bytes | None = None) -> bytes:
    return b"Content-Length: " + (length or b"%d" % len(body)) + b"\r\n\r\n" + body


def still_serving(server: StdioServer, name: str) -> None:
    uri = (server.root / f"{name}.py").as_uri()
    server.open(uri, BROKEN)
    assert [d["code"] for d in server.diagnostics(uri, 1)] == ["AG000"]


REQUEST = json.dumps({"jsonrpc": "2.0", "id": 99, "method": "x/nothing", "params": None}).encode()


@pytest.mark.parametrize(
    "length",
    [b"1000000000000", b"9223372036854775808", b"-5", b"0", b"12abc", b"99999999999999999999999"],
)
def test_a_lying_content_length_is_rejected_and_the_stream_read_on(server, length):
    server.initialize()
    # The rejected frame's body runs into the next frame's header, as on the wire.
    server.send_raw(frame(REQUEST, length))
    still_serving(server, "after")
    assert server.alive()
    assert "rejected" in server.logged()


def test_a_short_content_length_does_not_desynchronise_the_stream(server):
    server.initialize()
    body = json.dumps({"jsonrpc": "2.0", "method": "autograd-lint/nothing", "params": {}})
    server.send_raw(frame(body.encode(), b"10"))  # the rest is read as junk
    still_serving(server, "after_short")
    server.send_raw(frame(body.encode(), b"%d" % (len(body) + 30)))  # eats the next header
    server.send_raw(frame(body.encode()))
    still_serving(server, "after_long")


def test_a_header_line_without_end_is_read_in_bounded_pieces(server):
    server.initialize()
    server.send_raw(b"X" * 200_000 + frame(REQUEST))  # no newline for 200 kB, then a frame
    still_serving(server, "after_long_line")


def test_a_second_initialize_is_refused(server):
    first = server.initialize()
    assert "result" in first
    second = server.request(
        "initialize", {"processId": None, "rootUri": None, "capabilities": {"general": {}}}
    )
    assert second["error"]["code"] == -32600  # InvalidRequest
    assert "only be sent once" in second["error"]["message"]
    # The first session's state is untouched: UTF-16 positions and push diagnostics.
    still_serving(server, "after_second")


def test_json_nested_too_deep_is_dropped(server):
    # Found by the fuzzer: json.loads raises RecursionError, not ValueError, on this.
    server.initialize()
    body = b'{"jsonrpc": "2.0", "method": "x", "params": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    server.send_raw(frame(body))
    still_serving(server, "after_deep")
    assert "dropped an unreadable message" in server.logged()

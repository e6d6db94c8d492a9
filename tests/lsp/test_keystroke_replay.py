"""The server's diagnostics after each keystroke equal a fresh analysis of that text.

bench/latency.py's two typing scenarios (a statement typed into a function and deleted,
in valid code; a bracket-heavy statement typed into a function, most versions of the
file broken) are replayed through the server's didChange handler on a smaller training
file, as bench/keystroke_profile.py does; after each publish, the diagnostics sent are
compared with what a new server publishes when it opens that version's text.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(name: str):
    """A bench script as a module, without bench/ on sys.path (its fuzz.py would hide
    the tests' fuzz package from the other test files of this process)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


bench_module("machine_load")  # what latency.py imports
latency = bench_module("latency")
keystroke_profile = bench_module("keystroke_profile")
keystrokes, parses_after_each = latency.keystrokes, latency.parses_after_each
training_file, typing_broken = latency.training_file, latency.typing_broken

URI = "file:///replay/train.py"


def published(server) -> list:
    body = server.protocol.writer.last.decode()
    message = json.loads(body[body.index("{") :])
    assert message["method"] == "textDocument/publishDiagnostics"
    return message["params"]["diagnostics"]


@pytest.fixture(scope="module")
def text() -> str:
    return training_file(400)


@pytest.mark.parametrize("scenario", ["valid", "broken"])
def test_every_keystroke_publishes_what_a_fresh_analysis_of_its_text_does(text, scenario):
    lines = text.split("\n")
    edits = keystrokes(lines, 50) if scenario == "valid" else typing_broken(lines)[::3]
    server, document = keystroke_profile.open_server(URI, text)
    compared = []

    def compare(version: int) -> None:
        fresh, _ = keystroke_profile.open_server(URI, document.source)
        assert published(server) == published(fresh), f"version {version}"
        compared.append(version)

    keystroke_profile.replay(server, document, edits, None, compare)
    assert len(compared) == len(edits)
    # Both scenarios hold versions that parse and versions that do not, and findings.
    parses = parses_after_each(lines, edits)
    assert any(parses) and not all(parses)
    assert len(published(server)) > 5

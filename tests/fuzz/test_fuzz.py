"""A short, seeded fuzzing run against the real server (bench/fuzz.py runs it for minutes)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # stdio_client, fuzzing

from fuzzing import SOURCES, Fuzzer, normalized, utf16_position  # noqa: E402

# Seconds of fuzzing after the server has started: a few hundred edits on this machine.
SECONDS = 20.0


def test_positions_count_utf16_units_and_lsp_line_ends():
    text = "a😀b\r\nc\rd\u2028e\n"
    assert utf16_position(text, 3) == {"line": 0, "character": 4}  # the emoji is 2 units
    assert utf16_position(text, 5) == {"line": 1, "character": 0}  # after \r\n
    assert utf16_position(text, 7) == {"line": 2, "character": 0}  # after a lone \r
    assert utf16_position(text, 10) == {"line": 2, "character": 3}  # U+2028 is no line end


def test_a_mismatch_is_seen():
    first = [{"range": {"start": 1}, "code": "AG000", "severity": 1, "message": "m"}]
    assert normalized(first) != normalized([])


def test_fuzzing_the_server_briefly(tmp_path):
    fuzzer = Fuzzer(tmp_path, seed=16, sources=SOURCES[::7])
    counts = fuzzer.run(SECONDS)
    print(counts.line())
    assert counts.bursts > 0 and counts.edits > 0
    assert (counts.crashes, counts.hangs, counts.mismatches, counts.spawned) == (0, 0, 0, 0), (
        counts.problems[:5]
    )

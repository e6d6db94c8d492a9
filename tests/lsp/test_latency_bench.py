"""bench/latency.py keeps working (its numbers are for the closing notes, not asserted)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "latency.py"


def test_the_latency_benchmark_runs_and_reports_every_number():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--lines", "400", "--edits", "6", "--files", "2"]
        + ["--starts", "1", "--gap", "0.01", "--broken-edits", "30", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    numbers = json.loads(done.stdout)
    assert numbers["file_lines"] >= 400
    assert numbers["keystroke_ms"]["count"] == 6
    assert numbers["files_open"] == 2
    assert len(numbers["first_open_ms_each"]) == 2  # one start, and the keystroke server
    for key in ("startup_ms_median", "startup_ms_without_import_cache", "first_open_ms"):
        assert numbers[key] > 0
    assert 0 < numbers["keystroke_ms"]["p50"] <= numbers["keystroke_ms"]["max"]
    assert numbers["rss_mb"] > 10
    # the floor under startup: a pygls server with nothing of ours answered `initialize`
    floor = numbers["pygls_floor_ms"]
    for key in ("cached", "uncached", "cached_cpu", "uncached_cpu"):
        assert floor[key] > 0, key
    assert numbers["first_open_cpu_ms"] > 0 and numbers["keystroke_ms"]["cpu_p50"] > 0
    # typing into broken code: the first 30 edits hold versions that parse and some that do not
    typing = numbers["typing_into_broken_code_ms"]
    assert typing["broken"]["count"] + typing["valid"]["count"] == 30
    assert min(typing["broken"]["count"], typing["valid"]["count"]) > 0
    assert 0 < typing["broken"]["p50"] <= typing["broken"]["p95"] <= typing["broken"]["max"]
    ruff = numbers["ruff_server_ms"]
    if shutil.which("ruff") is None:
        assert ruff is None
    else:  # the same edits, answered by ruff server
        assert ruff["broken"]["count"] == typing["broken"]["count"]
        assert ruff["valid"]["p50"] > 0


FIRST_OPEN = BENCH.parent / "first_open.py"


def test_the_first_open_breakdown_times_every_phase_of_a_real_open():
    done = subprocess.run(
        [sys.executable, str(FIRST_OPEN), "--lines", "300", "--runs", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    numbers = json.loads(done.stdout)
    assert numbers["findings"] > 0  # the generated file's samples hold buggy loops
    phases = ("parse and cut blocks", "analysis roots", "pattern checks (AG005-AG007)",
              "evidence of definitions", "diagnostics", "publish (JSON)")  # fmt: skip
    for phase in phases:
        assert numbers[phase] > 0, phase
    # Outermost calls only: the phases the open runs one after the other fit inside it.
    whole = numbers["first open, in all"]
    in_turn = ("parse and cut blocks", "analysis roots", "pattern checks (AG005-AG007)",
               "diagnostics", "publish (JSON)")  # fmt: skip
    assert sum(numbers[phase] for phase in in_turn) <= whole
    assert (
        numbers["evidence of definitions"]
        <= numbers["analysis roots"] + numbers["pattern checks (AG005-AG007)"]
    )
    # The roots' own work: what is left of them once the evidence they asked for is taken out.
    assert 0 < numbers["analysis roots less its evidence"] < numbers["analysis roots"]

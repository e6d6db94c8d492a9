"""bench/notebooks.py keeps working (its numbers are for the closing notes, not asserted)."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "notebooks.py"


def test_the_notebook_benchmark_runs_and_reports_every_number():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--cells", "12", "--lines", "400", "--edits", "6"]
        + ["--notebooks", "3", "--repeat", "1", "--gap", "0.01", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    numbers = json.loads(done.stdout)
    latency, throughput = numbers["latency"], numbers["throughput"]
    assert latency["cells"] == 12 and latency["notebook_lines"] >= 300
    assert latency["keystroke_ms"]["count"] == 6
    assert 0 < latency["keystroke_ms"]["p50"] <= latency["keystroke_ms"]["max"]
    assert latency["first_open_ms"] > 0 and latency["keystroke_ms"]["cpu_p50"] > 0
    assert throughput["notebooks"] == 3 and throughput["code_lines"] > 0
    assert throughput["ipynb_lines_per_s"] > 0 and throughput["py_lines_per_s"] > 0

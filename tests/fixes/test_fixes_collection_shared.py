"""The fix cases' collection-time work is split among xdist workers (split_among_workers.py):
each worker computes its share, and every worker ends with the whole result, in order.

Workers are stood in for by processes given the environment xdist gives its workers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKER = """
import json, sys
import split_among_workers
split_among_workers.WAIT_S = float(sys.argv[1])
computed = []

def square_each(part):
    computed.extend(part)
    return [n * n for n in part]

merged = split_among_workers.computed_in_parts("test-squares", list(range(7)), square_each)
print(json.dumps({"computed": computed, "merged": merged}))
"""


def start_worker(number: int, count: int, run: str, wait_s: float = 60.0) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "PYTEST_XDIST_WORKER": f"gw{number}",
        "PYTEST_XDIST_WORKER_COUNT": str(count),
        "PYTEST_XDIST_TESTRUNUID": run,
    }
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(wait_s)], env=env, stdout=subprocess.PIPE, text=True
    )


def report(worker: subprocess.Popen) -> dict:
    out, _ = worker.communicate(timeout=120)
    assert worker.returncode == 0
    return json.loads(out)


def test_each_worker_computes_its_share_and_gets_the_whole():
    run = uuid.uuid4().hex
    first, second = (report(w) for w in [start_worker(0, 2, run), start_worker(1, 2, run)])
    assert first["computed"] == [0, 2, 4, 6]
    assert second["computed"] == [1, 3, 5]
    assert first["merged"] == second["merged"] == [n * n for n in range(7)]
    # The last worker to read removes the parts (not on exit: one may end before another
    # has read its part, as with `--collect-only -n 2`).
    assert not (Path(tempfile.gettempdir()) / f"autograd-lint-test-squares-{run}").exists()


def test_a_part_that_never_comes_is_computed_by_the_worker_waiting_for_it():
    run = uuid.uuid4().hex
    alone = report(start_worker(0, 2, run, wait_s=0.2))
    shutil.rmtree(Path(tempfile.gettempdir()) / f"autograd-lint-test-squares-{run}")
    assert alone["computed"] == [0, 2, 4, 6, 1, 3, 5]
    assert alone["merged"] == [n * n for n in range(7)]


def test_outside_a_run_of_workers_everything_is_computed_in_one_go():
    # A restarted worker (its number past the count) is treated the same way.
    restarted = report(start_worker(3, 2, uuid.uuid4().hex))
    assert restarted["computed"] == list(range(7))
    assert restarted["merged"] == [n * n for n in range(7)]

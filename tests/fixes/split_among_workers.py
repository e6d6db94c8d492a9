"""Collection-time work that every xdist worker needs, done once per run, in parts.

Each worker of `pytest -n N` imports every test module, so a parametrization computed at
import (the fix cases: every buggy program analysed and its fixes verified, seconds) is
paid N times. Here worker k computes only items[k::N], leaves its part (pickled) in a
folder of this run, and reads the others' parts there: the N workers share the work
instead of repeating it. Without xdist, or as a worker xdist started in place of one that
died (its number is not below N), a process computes everything itself; a part that does
not come within `WAIT_S` is computed by the worker that waits for it, so nothing blocks.
The merged result is the one a single process computes, in the same order.
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

WAIT_S = 120.0
POLL_S = 0.02


def _this_worker() -> tuple[int, int, str] | None:
    """(number, count, run id) of this xdist worker, or None outside a run of workers."""
    worker = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    if not (worker and count.isdigit() and re.fullmatch(r"\w+", run)):
        return None
    number = int(worker.group(1))
    return (number, int(count), run) if number < int(count) else None


def _write_atomically(path: Path, data: bytes) -> None:
    scratch = path.with_suffix(f".{os.getpid()}.tmp")
    scratch.write_bytes(data)
    os.replace(scratch, path)  # a reader sees the whole part or none of it


def _done_reading(folder: Path, number: int, count: int) -> None:
    """Marks this worker's reading done; the last worker to finish removes the folder (no
    part can be removed earlier: a worker may end before a slower one has read it)."""
    (folder / f"read{number}").touch()
    if all((folder / f"read{other}").exists() for other in range(count)):
        shutil.rmtree(folder, ignore_errors=True)


def computed_in_parts(name: str, items: Sequence, compute: Callable[[Sequence], list]) -> list:
    """`compute(items)`, the list of one result per item, computed shared among workers.

    `compute` must give one picklable result per item, and the same on every worker.
    """
    worker = _this_worker()
    if worker is None:
        return compute(items)
    number, count, run = worker
    folder = Path(tempfile.gettempdir()) / f"autograd-lint-{name}-{run}"
    folder.mkdir(exist_ok=True)
    parts: dict[int, list] = {number: compute(items[number::count])}
    mine = folder / f"part{number}.pickle"
    _write_atomically(mine, pickle.dumps(parts[number]))
    deadline = time.monotonic() + WAIT_S
    for other in range(count):
        path = folder / f"part{other}.pickle"
        while other not in parts and not path.exists() and time.monotonic() < deadline:
            time.sleep(POLL_S)
        if other not in parts:
            parts[other] = (
                pickle.loads(path.read_bytes()) if path.exists() else compute(items[other::count])
            )
    merged: list = [None] * len(items)
    for other, results in parts.items():
        merged[other::count] = results
    _done_reading(folder, number, count)
    return merged

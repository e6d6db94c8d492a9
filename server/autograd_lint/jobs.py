"""Checking many files: through the result cache (cache.py), in a pool of processes.

`check_files` gives each file's findings in the order of the files whatever the number of
jobs: the output is the serial run's. Workers are forked from the process that made the
file list and inherit its project indexes (`Workspace`), then each builds the module
summaries its files import, lazily; files are handed out in runs of neighbours, which
import the same modules, of about equal expected cost, the costliest first. (Building the
summaries that several files import once, before the fork, from a scan of the files'
import lines, cost more than it saved: over bench/throughput.py's corpus, 8.9 s of CPU
against 5.7 s, as the scan finds imports the analysis never resolves. Built lazily, 43 of
the corpus's 160 summaries are built by both of two workers: about 0.25 s of CPU, less
than a parent building them while the other core waits.) Nothing but findings crosses a
process boundary. Where fork is not available (Windows, macOS' default), files are
checked in one process.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

from .analysis.model import Finding
from .cache import ImportGraph, ResultCache, recording_library_reads
from .checker import read_python_file

CHUNKS_PER_JOB = 8  # neighbouring files stay in one worker (they import the same modules)
# What a file costs, by its size: one that back-propagates runs the interpreter, about four
# times the cost per byte of one that is only parsed and pattern-checked (bench/throughput.py's
# corpus: 1.6 against 0.36 CPU s per MB).
INTERPRETED_COST = 4
INTERPRETED_MARKERS = (b"backward", b"autograd")  # program.is_relevant, on bytes


class FileTask(NamedTuple):
    file: Path  # as found
    shown: Path  # as reported
    settings: object  # config.Settings
    workspace: object  # workspace.Workspace
    cacheable: bool  # a .py file checked without fixes


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


# The run a forked worker serves: set before the pool starts, inherited by fork.
_RUN: tuple | None = None


def check_files(
    tasks: list[FileTask],
    check_one: Callable[[FileTask], list[Finding]],
    jobs: int,
    cache: ResultCache | None,
) -> list[list[Finding]]:
    """Each task's findings, in order: from the cache where it has them (looked up here,
    cheap), the others checked in `jobs` processes (and stored in the cache)."""
    global _RUN
    results: list[list[Finding] | None] = [None] * len(tasks)
    todo: list[tuple[int, bytes | None]] = []
    for index, task in enumerate(tasks):
        data = _read(task) if cache is not None and task.cacheable else None
        found = cache.lookup(task.shown, data, task.settings) if data is not None else None
        if found is None:
            todo.append((index, data))
        results[index] = found
    if jobs <= 1 or len(todo) < 2 or not can_fork():
        parts = [_check_some(tasks, check_one, cache, todo)]
    else:
        jobs = min(jobs, len(todo))
        # The engine is imported with the first file analysed (a run the cache answers
        # needs none): once here, shared by fork, rather than once in each worker.
        from .analysis import engine  # noqa: F401

        costs = [_cost(tasks[i], data) for i, data in todo]
        bounds = _balanced_bounds(costs, jobs * CHUNKS_PER_JOB)
        runs = list(zip(bounds[:-1], bounds[1:]))
        # The costliest runs first, so that the last ones handed out are cheap and no core
        # waits long for another to finish; the results are put back in the files' order.
        order = sorted(range(len(runs)), key=lambda k: -sum(costs[slice(*runs[k])]))
        _RUN = (tasks, check_one, cache, todo)
        # What the workers inherit is never garbage they must look at: frozen, their
        # collections skip it (and do not write to its pages, which fork shares).
        gc.freeze()
        try:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(jobs, mp_context=context) as pool:
                done = pool.map(_worker, *zip(*(runs[k] for k in order)))
                by_run = dict(zip(order, done))
            parts = [by_run[k] for k in range(len(runs))]
        finally:
            _RUN = None
            gc.unfreeze()
    for (index, _), found in zip(todo, (f for part in parts for f in part), strict=True):
        results[index] = found
    return results


def _cost(task: FileTask, data: bytes | None) -> int:
    """A file's expected analysis cost (a weight, not a time)."""
    if data is None:
        try:
            return os.stat(task.file).st_size
        except OSError:
            return 0
    interpreted = any(marker in data for marker in INTERPRETED_MARKERS)
    return len(data) * (INTERPRETED_COST if interpreted else 1)


def _balanced_bounds(costs: list[int], count: int) -> list[int]:
    """Bounds of at most `count` runs of neighbouring items of about equal total cost
    (each run at least one item): [0, ..., len(costs)]."""
    count = max(1, min(count, len(costs)))
    total = sum(costs) or 1
    bounds, running = [0], 0
    for index, cost in enumerate(costs[:-1]):
        running += cost
        if running * count >= total * len(bounds) and len(bounds) < count:
            bounds.append(index + 1)
    bounds.append(len(costs))
    return bounds


def _worker(begin: int, end: int) -> list[list[Finding]]:
    tasks, check_one, cache, todo = _RUN
    return _check_some(tasks, check_one, cache, todo[begin:end])


def _check_some(tasks, check_one, cache, todo) -> list[list[Finding]]:
    """Findings of tasks[index] for each (index, its bytes if cacheable) of `todo`."""
    results: list[list[Finding]] = []
    analysed: list[tuple[FileTask, bytes, list[Finding], dict[str, str]]] = []
    with _collect_per_file() as file_done:
        for index, data in todo:
            task = tasks[index]
            with recording_library_reads() as libraries:
                found = check_one(task)
            if data is not None:
                analysed.append((task, data, found, libraries))
            results.append(found)
            file_done()
    if analysed:
        _store(cache, analysed)
    return results


@contextlib.contextmanager
def _collect_per_file():
    """The cyclic garbage collector, once per file and over that file's objects only.

    What a run keeps (the project's module summaries, their syntax trees) only grows, and
    CPython's automatic collections walk all of it again and again: 60% of the run's time
    on timm's 300 files. Instead, after each file, the objects made since the last file
    are collected (frees that file's cycles) and the survivors frozen, never walked again.
    """
    was_enabled = gc.isenabled()
    gc.disable()

    def file_done() -> None:
        gc.collect(0)
        gc.freeze()

    try:
        yield file_done
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def _store(cache: ResultCache, analysed) -> None:
    graphs: dict[int, ImportGraph] = {}
    for task, data, found, libraries in analysed:
        workspace = task.workspace
        graph = graphs.get(id(workspace))
        if graph is None:
            graph = graphs[id(workspace)] = ImportGraph(getattr(workspace, "_importers", {}))
        deps = graph.dependencies(cache.resolved(task.file))
        cache.store(task.shown, data, task.settings, deps, found, libraries)


def _read(task: FileTask) -> bytes | None:
    # As the checker reads (never a FIFO, nothing past the size limit): None, and the
    # checker reports why.
    return read_python_file(task.file, task.settings.max_file_size)[0]

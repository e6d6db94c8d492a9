"""Run the yardstick's runnable completions under torch and check each one's label.

    python tests/realworld/run_cases.py [--json OUT] [--timeout S] [--jobs N] FILE...

One interpreter imports torch once, and the other libraries the files import at their
top (lightning, gpytorch, ...: seconds each); every file then runs in a forked child (so
one case's globals, threads or crash cannot leak into the next) with its output captured,
`--jobs` of them at a time (default 2).
A file whose line ends with `# realworld: fails` must raise the graph error from that
line — the innermost frame of the file itself in the traceback; a file without the mark
must run to the end. The error is `freed` ("Trying to backward through the graph a
second time") or `inplace` ("modified by an inplace operation").

Prints one line per file and exits 1 if any label does not hold. `--json OUT` writes
the outcomes, which `tests/test_realworld.py` reads.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import json
import os
import re
import select
import signal
import sys
import tempfile
import time
import traceback
from multiprocessing.pool import ThreadPool
from pathlib import Path

FAILS_MARK = re.compile(r"#\s*realworld:\s*fails\s*$")
ERRORS = {
    "freed": "Trying to backward through the graph a second time",
    "inplace": "modified by an inplace operation",
}
DEFAULT_TIMEOUT_S = 120


def marked_lines(path: Path) -> list[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [number for number, line in enumerate(lines, 1) if FAILS_MARK.search(line)]


def error_kind(message: str) -> str | None:
    return next((kind for kind, text in ERRORS.items() if text in message), None)


def _innermost_line(exc: BaseException, path: Path) -> int | None:
    target = os.path.realpath(path)
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(frame.filename) == target:
            line = frame.lineno
    return line


def _run_child(path: Path, out_fd: int) -> None:
    """In the forked child: run the file as __main__ and write the outcome as JSON."""
    import runpy

    result: dict = {"outcome": "clean"}
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 - open until the child exits
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    workdir = tempfile.mkdtemp(prefix="realworld-")
    os.chdir(workdir)
    sys.argv = [str(path)]
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            result = {"outcome": "raised", "error_type": "SystemExit", "message": str(exc.code)}
    except BaseException as exc:  # noqa: BLE001 - every outcome is reported, not raised
        result = {
            "outcome": "raised",
            "error_type": type(exc).__name__,
            "message": str(exc)[:600],
            "line": _innermost_line(exc, path),
        }
    sys.stdout.flush()
    sys.stderr.flush()
    log.seek(0)
    result["output_tail"] = log.read()[-1500:]
    os.write(out_fd, json.dumps(result).encode())
    os.close(out_fd)
    os._exit(0)


def preload(paths: list[Path]) -> None:
    """Import, once and before any fork, each non-standard library a file imports at its top.

    A case that imports lightning then finds it loaded instead of spending seconds on it.
    """
    names = set()
    for path in paths:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    for name in sorted(names - set(sys.stdlib_module_names)):
        # A library that fails to import is left to the case, which meets the same error.
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def run_one(path: Path, timeout_s: float) -> dict:
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            _run_child(path, write_fd)
        finally:
            os._exit(3)
    os.close(write_fd)
    chunks = []
    deadline = started + timeout_s
    timed_out = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    seconds = round(time.monotonic() - started, 2)
    if timed_out:
        return {"outcome": "timeout", "seconds": seconds}
    try:
        result = json.loads(b"".join(chunks))
    except ValueError:
        return {"outcome": "died", "status": status, "seconds": seconds}
    result["seconds"] = seconds
    return result


def verdict(path: Path, result: dict) -> tuple[bool, str]:
    """Whether the run agrees with the file's mark, and why not."""
    marks = marked_lines(path)
    if len(marks) > 1:
        return False, f"{len(marks)} lines marked; mark exactly one"
    if not marks:
        if result["outcome"] == "clean":
            return True, "ran cleanly"
        return False, f"unmarked but {result['outcome']}: {result.get('message', '')[:200]}"
    if result["outcome"] != "raised":
        return False, f"marked line {marks[0]} but {result['outcome']}"
    kind = error_kind(result.get("message", ""))
    if result.get("error_type") != "RuntimeError" or kind is None:
        return False, f"raised {result.get('error_type')}: {result.get('message', '')[:200]}"
    if result.get("line") != marks[0]:
        return False, f"raised {kind} at line {result.get('line')}, marked line {marks[0]}"
    return True, f"raised {kind} at line {marks[0]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write the outcomes here")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # Whatever the cases and their libraries write to the temporary folder (each case's
    # working folder; torch_geometric renders a module file per MessagePassing class, and
    # never removes it) goes into one folder of this run, removed at its end.
    outcomes: dict = {}
    with tempfile.TemporaryDirectory(prefix="realworld-") as scratch:
        tempfile.tempdir = os.environ["TMPDIR"] = scratch
        failures = run_all(args, outcomes)
    if args.json:
        args.json.write_text(json.dumps(outcomes, indent=1), encoding="utf-8")
    print(f"{len(outcomes) - failures} of {len(outcomes)} labels hold")
    return 1 if failures else 0


def run_all(args: argparse.Namespace, outcomes: dict) -> int:
    """Run every file (`--jobs` at a time), print its line, and fill `outcomes`; the number
    of labels that do not hold."""
    import torch  # noqa: F401 - imported once, before the forks

    preload(args.files)
    failures = 0
    # Each worker thread only forks a case and waits on its pipe; the results are printed
    # here, in the order of the files, whatever order they finish in.
    with ThreadPool(max(1, args.jobs)) as pool:
        results = pool.imap(lambda path: run_one(path.resolve(), args.timeout), args.files)
        for path, result in zip(args.files, results, strict=True):
            ok, why = verdict(path, result)
            result.update(ok=ok, why=why, marked=marked_lines(path))
            outcomes[str(path)] = result
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {path} ({result['seconds']} s): {why}", flush=True)
            if not ok and result.get("output_tail"):
                print("     " + result["output_tail"][-600:].replace("\n", "\n     "))
    return failures


if __name__ == "__main__":
    sys.exit(main())

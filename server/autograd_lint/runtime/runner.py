"""Runs the harness on a user's script and turns its report into a verdict per finding.

This side never imports torch: the script runs in a child process started with the
configured interpreter, in the script's folder, in a session (process group) of its own
so that a timeout or a cancel can kill everything it started.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from ..analysis.model import Finding
from .matching import finding_lines, verdict_for
from .verdict import (
    REPORT_FIELDS,
    STATUSES,
    RuntimeOptions,
    RuntimeVerdict,
    format_verdict,
    refusal,
)

HARNESS = Path(__file__).resolve().with_name("harness.py")
# What each captured stream keeps: its end, where the useful part of a traceback is.
OUTPUT_LIMIT = 64 * 1024
POLL_SECONDS = 0.05

Cancel = threading.Event | Callable[[], bool] | None
EventCallback = Callable[[dict], None] | None


# -- one harness run ------------------------------------------------------------------------


def script_loops(script: Path) -> set[tuple[int, int]]:
    """Every `for` and `while` statement of the script, as (first line, last line)."""
    try:
        tree = ast.parse(script.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return set()
    kinds = (ast.For, ast.AsyncFor, ast.While)
    return {(n.lineno, n.end_lineno) for n in ast.walk(tree) if isinstance(n, kinds)}


def harness_command(
    script: Path, findings: Iterable[Finding], options: RuntimeOptions, result_arg: list[str]
) -> list[str]:
    findings = list(findings)
    lines = sorted({line for f in findings for line in finding_lines(f)})
    loops = {(f.loop.start.line, f.loop.end.line) for f in findings if f.loop}
    if options.discover:  # no finding says where the loop is: count every loop's passes
        loops |= script_loops(script)
    command = [options.python or sys.executable, str(HARNESS), "--script", str(script)]
    # Lines of interest make the harness name a finding's line when it is on the stack; a
    # discovering run names the failing backward itself, and its frames name the rest.
    if lines and not options.discover:
        command += ["--lines", ",".join(map(str, lines))]
    if loops:
        command += ["--loop-lines", ",".join(f"{start}:{end}" for start, end in sorted(loops))]
    command += ["--max-steps", str(options.max_steps), "--device", options.device]
    if not options.intercept:
        command.append("--no-intercept")
    if options.discover:
        command.append("--keep-going")
    return command + result_arg + ["--", *options.args]


def child_environment(options: RuntimeOptions) -> dict:
    env = {**os.environ, **{str(k): str(v) for k, v in options.env.items()}}
    if options.device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    elif options.device.startswith("cuda:"):
        env["CUDA_VISIBLE_DEVICES"] = options.device.split(":", 1)[1]
        env["AUTOGRAD_LINT_DEVICE_PINNED"] = "1"
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _cancel_check(cancel: Cancel) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def kill_group(process: subprocess.Popen) -> None:
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    else:
        with contextlib.suppress(OSError):
            process.kill()


def _tail(stream) -> str:
    stream.seek(0, os.SEEK_END)
    size = stream.tell()
    stream.seek(max(0, size - OUTPUT_LIMIT))
    return stream.read().decode("utf-8", errors="replace")


class EventReader(threading.Thread):
    """Reads the harness's JSON lines from the pipe as they come."""

    def __init__(self, fd: int, on_event: EventCallback):
        super().__init__(name="autograd-lint-harness-events", daemon=True)
        self.fd = fd
        self.on_event = on_event
        self.events: list[dict] = []

    def run(self) -> None:
        buffer = b""
        with os.fdopen(self.fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    self._take(line)
        self._take(buffer)

    def _take(self, line: bytes) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        if isinstance(event, dict):
            self.events.append(event)
            if self.on_event is not None:
                with contextlib.suppress(Exception):
                    self.on_event(event)


def run_harness(
    script: Path,
    findings: Iterable[Finding],
    options: RuntimeOptions,
    cancel: Cancel = None,
    on_event: EventCallback = None,
    on_start: Callable[[], None] | None = None,
) -> RuntimeVerdict:
    """One run of the script under the harness; the verdict it reached (or why it reached none).

    A warm child (warm.py) that matches the request runs it when there is one; else a
    fresh interpreter starts now. Either way the run is supervised the same. `on_start` is
    called once the run has its process (the CLI then warms the next file's)."""
    script = Path(script).resolve()
    if not script.is_file():
        return RuntimeVerdict("error", detail=f"script not found: {script}")
    cancelled = _cancel_check(cancel)
    from .warm import POOL

    warm = POOL.take(script, options, cancelled)
    if warm is not None:
        warm.reader.on_event = on_event
        warm.send(harness_command(script, findings, options, [])[2:])
        if on_start is not None:
            on_start()
        try:
            return _supervise(
                warm.process,
                warm.reader,
                warm.watch_write,
                None,
                options,
                cancelled,
                warm.out,
                warm.err,
            )
        finally:
            warm.out.close()
            warm.err.close()
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as scratch,
    ):
        result_file = None
        if os.name == "posix":
            read_fd, write_fd = os.pipe()
            # The harness reads `watch_read` until this process closes `watch_write`: when
            # we exit or die mid-run, it kills its process group (harness.watch_runner).
            watch_read, watch_write = os.pipe()
            channel = ["--result-fd", str(write_fd), "--watch-fd", str(watch_read)]
            spawn = {"pass_fds": (write_fd, watch_read), "start_new_session": True}
        else:  # no fd passing: a result file, read once the run is over
            result_file = Path(scratch) / "result.jsonl"
            watch_write = None
            channel = ["--result-file", str(result_file)]
            spawn = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
        command = harness_command(script, findings, options, channel)
        try:
            process = subprocess.Popen(
                command,
                cwd=script.parent,
                env=child_environment(options),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                **spawn,
            )
        except OSError as error:
            if os.name == "posix":
                os.close(read_fd)
                os.close(watch_write)
            return RuntimeVerdict("error", detail=f"cannot start {command[0]}: {error}")
        finally:
            if os.name == "posix":
                os.close(write_fd)
                os.close(watch_read)
        reader = EventReader(read_fd, on_event) if os.name == "posix" else None
        if reader is not None:
            reader.start()
        if on_start is not None:
            on_start()
        return _supervise(
            process, reader, watch_write, result_file, options, cancelled, out, err, on_event
        )


def _supervise(
    process: subprocess.Popen,
    reader: EventReader | None,
    watch_write: int | None,
    result_file: Path | None,
    options: RuntimeOptions,
    cancelled: Callable[[], bool],
    out,
    err,
    on_event: EventCallback = None,
) -> RuntimeVerdict:
    """Waits for a started harness (until its end, its timeout or a cancel), kills its
    process group whatever happened, and reads its verdict."""
    stop = threading.Event()
    with _running(stop):
        stopped = _wait(process, options.timeout_seconds, lambda: stop.is_set() or cancelled())
    # Whatever the outcome, nothing the script started outlives the run.
    kill_group(process)
    process.wait()
    if watch_write is not None:
        os.close(watch_write)
    if reader is not None:
        reader.join(timeout=5)
        events = reader.events
    else:
        events = _read_result_file(result_file, on_event)
    verdict = _verdict_from(events, stopped, process.returncode, options)
    verdict.stdout, verdict.stderr = _tail(out), _tail(err)
    if verdict.status == "error" and stopped is None and verdict.detail.startswith("harness"):
        last = verdict.stderr.strip().splitlines()[-1:] or [""]
        verdict.detail += f": {last[0]}" if last[0] else ""
    return verdict


# Every run in progress, by its stop flag: `stop_all()` is what a server calls on exit.
_RUNS: set = set()
_RUNS_LOCK = threading.Lock()


@contextlib.contextmanager
def _running(flag: threading.Event):
    with _RUNS_LOCK:
        _RUNS.add(flag)
    try:
        yield
    finally:
        with _RUNS_LOCK:
            _RUNS.discard(flag)


def stop_all() -> None:
    """Stop every run in progress in this process (each kills its process group), and end
    the warm children."""
    with _RUNS_LOCK:
        for flag in _RUNS:
            flag.set()
    from .warm import POOL

    POOL.close()  # and every warm child waiting for a run


def _read_result_file(path: Path, on_event: EventCallback) -> list[dict]:
    if not path.exists():
        return []
    reader = EventReader(-1, on_event)
    for line in path.read_bytes().splitlines():
        reader._take(line)
    return reader.events


def _wait(process: subprocess.Popen, timeout: float, cancelled: Callable[[], bool]) -> str | None:
    """Waits for the harness; "timeout" or "cancelled" when it had to be stopped."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            process.wait(timeout=POLL_SECONDS)
            return None
        except subprocess.TimeoutExpired:
            pass
        if cancelled():
            return "cancelled"
        if time.monotonic() >= deadline:
            return "timeout"


def _verdict_from(
    events: list[dict], stopped: str | None, returncode: int, options: RuntimeOptions
) -> RuntimeVerdict:
    verdicts = [e for e in events if e.get("event") == "verdict"]
    calls = sum(1 for e in events if e.get("event") == "backward")
    if verdicts:
        report = {k: v for k, v in verdicts[-1].items() if k in REPORT_FIELDS}
        if report.get("status") in STATUSES:
            return RuntimeVerdict(**report)
    if stopped == "timeout":
        detail = f"timed out after {options.timeout_seconds:g} s ({calls} backward calls seen)"
    elif stopped == "cancelled":
        detail = f"cancelled ({calls} backward calls seen)"
    else:
        detail = f"harness exited with status {returncode} without a verdict"
    return RuntimeVerdict("error", detail=detail, backward_calls=calls)


def confirm(
    script: Path,
    findings: list[Finding],
    options: RuntimeOptions | None = None,
    cancel_event: Cancel = None,
    on_event: EventCallback = None,
) -> list[RuntimeVerdict]:
    """Runs `script` once and gives a verdict per finding (one verdict when there are none).

    `cancel_event` is a threading.Event or a callable polled every 50 ms; `on_event` gets each
    harness event (dict) as it arrives, on a reader thread.
    """
    options = options or RuntimeOptions()
    run = run_harness(script, findings, options, cancel_event, on_event)
    if not findings:
        return [run]
    return [verdict_for(finding, run) for finding in findings]


async def confirm_async(
    script: Path,
    findings: list[Finding],
    options: RuntimeOptions | None = None,
    on_event: EventCallback = None,
) -> list[RuntimeVerdict]:
    """`confirm` off the event loop; cancelling the awaiting task kills the script's process group."""
    cancel = threading.Event()
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(None, confirm, script, findings, options, cancel, on_event)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        cancel.set()
        with contextlib.suppress(Exception):
            await future
        raise


class ConfirmationRun:
    """A confirmation running on its own thread: `cancel()`, `done()`, `result(timeout)`."""

    def __init__(self, script, findings, options=None, on_event: EventCallback = None):
        self._cancel = threading.Event()
        self._result: list[RuntimeVerdict] | None = None
        self._error: BaseException | None = None
        self._finished = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(script, findings, options, on_event), daemon=True
        )
        self._thread.start()

    def _run(self, script, findings, options, on_event) -> None:
        try:
            self._result = confirm(script, findings, options, self._cancel, on_event)
        except BaseException as error:  # handed to whoever waits for the result
            self._error = error
        finally:
            self._finished.set()

    def cancel(self) -> None:
        self._cancel.set()

    def done(self) -> bool:
        return self._finished.is_set()

    def result(self, timeout: float | None = None) -> list[RuntimeVerdict]:
        if not self._finished.wait(timeout):
            raise TimeoutError("runtime confirmation still running")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


from .cli_options import add_cli_arguments, confirm_findings, options_from_args  # noqa: E402

__all__ = [
    "ConfirmationRun",
    "RuntimeOptions",
    "RuntimeVerdict",
    "add_cli_arguments",
    "confirm",
    "confirm_async",
    "confirm_findings",
    "format_verdict",
    "options_from_args",
    "refusal",
    "run_harness",
]

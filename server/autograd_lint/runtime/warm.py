"""The warm runner: a harness child started before it is asked for, so that a confirmation
does not wait for `import torch`.

A run's own cost is mostly imports: torch (1.5-2.5 s of CPU here), torch._dynamo (which
creating the first optimizer imports, about 2 s) and the script's libraries (Lightning,
torch_geometric). Once runtime confirmation is allowed (enabled, trusted: the callers
check, nothing here decides it), the CLI and the language server `prestart` a child for
the script they expect to run. It is started exactly as a cold run (runner.run_harness):
the same interpreter, the script's folder as working directory and sys.path[0], the same
environment, a session (process group) of its own, the result and watch pipes. It imports
torch and its lazy optimizer parts, the harness's helpers, and the script's *leading
import block*: the `import`/`from` statements before its first other statement, and of
those only the modules installed outside the project, up to the first that is not
(_preload.py decides, in the child). So no user code runs early and the script's imports
come in the order it wrote them. Then it waits on a pipe.

`take` hands a child to a run when it matches the request: interpreter, folder,
environment, script arguments and the script's leading imports as they are now (a child
whose file's imports changed is stale and dropped), no new file next to the script
shadowing a preloaded module. The run then sends its harness arguments down the pipe and
supervises the child as a cold one: its timeout starts at the request, and a timeout or
cancel kills the child's process group. A child serves one run; then it is gone.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .runner import HARNESS, EventReader, child_environment, kill_group

# How many warm children one process keeps (each holds an interpreter with torch loaded).
MAX_CHILDREN = 2


def leading_imports(source: str | bytes) -> tuple[str, ...]:
    """The modules of the script's leading import block, in order: each `import a.b` (a.b)
    and `from a.b import c` (a.b) before the first statement that is neither an import
    nor the docstring; `from __future__` is skipped, a relative import ends the block."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return ()
    names: list[str] = []
    for index, statement in enumerate(body):
        if index == 0 and _is_docstring(statement):
            continue
        if isinstance(statement, ast.Import):
            names += [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            if statement.module != "__future__":
                names.append(statement.module)
        else:
            break
    return tuple(dict.fromkeys(names))


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def script_imports(script: Path) -> tuple[str, ...] | None:
    try:
        return leading_imports(script.read_bytes())
    except OSError:
        return None


def child_key(script: Path, options) -> tuple:
    """What a warm child must share with a run: interpreter, folder, environment, arguments."""
    return (
        options.python or sys.executable,
        str(Path(script).resolve().parent),
        tuple(sorted(child_environment(options).items())),
        tuple(options.args),
    )


class _WarmReader(EventReader):
    """Reads a warm child's result pipe from its start: its `warm-ready` event is kept
    here; every later event goes to the run that took the child, as a cold run's do."""

    def __init__(self, fd: int):
        super().__init__(fd, None)
        self.ready = threading.Event()
        self.ready_report: dict = {}

    def run(self) -> None:
        try:
            super().run()
        finally:
            self.ready.set()  # the pipe closed: the child is gone, ready or not

    def _take(self, line: bytes) -> None:
        if not self.ready.is_set() and b'"warm-ready"' in line:
            with contextlib.suppress(ValueError):
                self.ready_report = json.loads(line)
                self.ready.set()
                return
        super()._take(line)


class WarmChild:
    """One pre-started harness child, for the scripts of one folder with one import block."""

    def __init__(self, script: Path, options):
        self.script = Path(script).resolve()
        self.python = options.python or sys.executable
        self.folder = self.script.parent
        self.env = child_environment(options)
        self.args = tuple(options.args)
        self.imports = script_imports(self.script) or ()
        self.started = time.monotonic()
        read_fd, write_fd = os.pipe()
        watch_read, self.watch_write = os.pipe()
        # The child's stdout and stderr, kept as long as it lives (closed by its run).
        self.out = tempfile.TemporaryFile()  # noqa: SIM115
        self.err = tempfile.TemporaryFile()  # noqa: SIM115
        command = [
            self.python, str(HARNESS), "--warm", "--script", str(self.script),
            "--preload", ",".join(self.imports),
            "--result-fd", str(write_fd), "--watch-fd", str(watch_read), "--", *self.args,
        ]  # fmt: skip
        try:
            self.process = subprocess.Popen(
                command,
                cwd=self.folder,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=self.out,
                stderr=self.err,
                pass_fds=(write_fd, watch_read),
                start_new_session=True,
            )
        except OSError:
            for fd in (read_fd, self.watch_write):
                os.close(fd)
            self.out.close()
            self.err.close()
            raise
        finally:
            for fd in (write_fd, watch_read):
                os.close(fd)
        self.key = child_key(self.script, options)
        self.reader = _WarmReader(read_fd)
        self.reader.start()

    def preloaded(self) -> list[str]:
        return list(self.reader.ready_report.get("preloaded") or [])

    def usable_for(self, script: Path, deadline: float, cancelled: Callable[[], bool]) -> bool:
        """Whether this child (of the run's key) may run `script` as a cold start would:
        the script's leading imports are still the ones it was started with, and it is
        ready (waited for, up to `deadline`, while the request is not cancelled)."""
        if script_imports(script) != self.imports:
            return False
        while not self.reader.ready.wait(0.05):
            if cancelled() or time.monotonic() >= deadline:
                return False
        report = self.reader.ready_report
        if not report.get("ok") or self.process.poll() is not None:
            return False
        # A module file or package put next to the script since would now shadow one
        # the child imported from site-packages.
        tops = {name.partition(".")[0] for name in self.preloaded()}
        try:
            here = {entry.partition(".")[0] for entry in os.listdir(self.folder)}
        except OSError:
            return False
        return not tops & here

    def send(self, argv: list[str]) -> None:
        """Hands the child its run: the harness arguments a cold start gets, less its
        channel, as the first line on the watch pipe (whose end still ends the child)."""
        data = (json.dumps({"argv": argv}) + "\n").encode("utf-8")
        while data:
            data = data[os.write(self.watch_write, data) :]

    def discard(self) -> None:
        """Ends an unused child and everything it started."""
        kill_group(self.process)
        self.process.wait()
        with contextlib.suppress(OSError):
            os.close(self.watch_write)
        self.reader.join(timeout=5)
        self.out.close()
        self.err.close()


class WarmPool:
    """The warm children of this process: at most one per (interpreter, folder,
    environment, arguments), MAX_CHILDREN in all, oldest dropped first."""

    def __init__(self):
        self._children: dict[tuple, WarmChild] = {}
        self._lock = threading.Lock()

    def prestart(self, script: Path, options, replace: bool = True) -> WarmChild | None:
        """A child ready to run `script` (started unless one that fits is there already).

        `replace=False` (the editor, at each code-lens request) keeps whatever child the
        key has, even one made for another file's imports or one that died (an
        interpreter without torch is not started again at every keystroke); after a run,
        `replace=True` starts afresh unless a live child already fits."""
        if not getattr(options, "warm", True) or os.name != "posix":
            return None
        script = Path(script).resolve()
        if not script.is_file():
            return None
        fresh_key = child_key(script, options)
        dropped = []
        with self._lock:
            current = self._children.get(fresh_key)
            if current is not None and not replace:
                return current
            alive = current is not None and current.process.poll() is None
            if alive and current.imports == script_imports(script):
                return current
            if current is not None:
                dropped.append(self._children.pop(fresh_key))
            while len(self._children) >= MAX_CHILDREN:
                oldest = min(self._children, key=lambda k: self._children[k].started)
                dropped.append(self._children.pop(oldest))
            try:
                child = WarmChild(script, options)
            except OSError:
                child = None
            if child is not None:
                self._children[child.key] = child
        for old in dropped:
            old.discard()
        return child

    def take(
        self,
        script: Path,
        options,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> WarmChild | None:
        """The child for this run, now no longer the pool's; None: start cold."""
        if not getattr(options, "warm", True) or os.name != "posix":
            return None
        key = child_key(script, options)
        with self._lock:
            child = self._children.pop(key, None)
        if child is None:
            return None
        deadline = time.monotonic() + options.timeout_seconds
        if child.usable_for(Path(script).resolve(), deadline, cancelled):
            return child
        child.discard()  # stale, or not ready in time: this run starts cold
        return None

    def close(self) -> None:
        with self._lock:
            children, self._children = list(self._children.values()), {}
        for child in children:
            child.discard()

    def __len__(self) -> int:
        return len(self._children)


POOL = WarmPool()

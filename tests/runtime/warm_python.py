"""A warm interpreter for the runtime tests: torch imported once, each harness run forked.

A confirmation run starts `options.python HARNESS ...` in a new session, passes it the
result and watch pipes, and kills its process group at the end. Started fresh, each run
spends nearly all its time importing torch. `WarmPython` starts one server process that
imports torch, and writes a small stand-in interpreter (`shim`): the runner starts the
shim as if it were Python, the shim hands its arguments, working directory,
environment and file descriptors (stdio and the two pipes) to the server over a Unix
socket, and the server forks a child that becomes the harness run: its own session,
those descriptors, `runpy` of the harness. The shim exits with the child's status.

If the runner kills the shim's group (timeout, cancel), the forked run is not in that
group; it ends when the runner closes its end of the watch pipe, which every harness
run watches (harness.watch_runner kills its own group then), exactly as a fresh one.
test_runtime_samples.py checks that warm and fresh runs give the same verdicts.

The shim also stands in for `python -c CODE ...` and `python -m MODULE ...`, so any test
that runs a torch program can use it (the `torch_python` fixture in tests/conftest.py);
test_warm_python.py checks each form against a fresh interpreter. A plain run has no
watch pipe: the server ends it when its shim goes away (a test's timeout killed it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHIM = """#!{python}
import json, os, socket, sys

args = sys.argv[1:]
fds = [0, 1, 2]
for flag in ("--result-fd", "--watch-fd"):
    if flag in args:
        fds.append(int(args[args.index(flag) + 1]))
request = {{"argv": args, "cwd": os.getcwd(), "env": dict(os.environ), "targets": fds}}
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
    server.connect({socket_path!r})
    socket.send_fds(server, [json.dumps(request).encode() + b"\\n"], fds)
    for fd in fds[3:]:
        os.close(fd)  # the forked run holds them now; the runner watches for their close
    reply = b""
    while not reply.endswith(b"\\n"):
        chunk = server.recv(64)
        if not chunk:
            sys.exit(1)
        reply += chunk
sys.exit(int(reply))
"""

SERVER = r"""
import importlib, json, os, runpy, select, signal, socket, sys, threading, traceback
if os.environ["WARM_PYTHON_TORCH"] == "1":
    import torch

for module in sys.argv[2:]:  # what the runs will import anyway, loaded once here
    importlib.import_module(module)

if os.environ["WARM_PYTHON_TORCH"] == "1":
    # The first optimizer step pulls in more of torch lazily: pay for it once, here.
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.ones(1, 2)).sum().backward()
    optimizer.step()
    del model, optimizer

listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen(16)
print("ready", flush=True)


runs = set()


def reply_when_done(conn, pid):
    # The run ends on its own (its status goes to the shim), or its shim went away first:
    # a killed shim (a test's timeout) must not leave the run behind.
    done = os.pidfd_open(pid)
    ready, _, _ = select.select([done, conn], [], [])
    if done not in ready:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:  # killed before its setsid: not a group leader yet
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    runs.discard(pid)
    os.close(done)
    code = os.waitstatus_to_exitcode(status)
    try:
        conn.sendall(f"{code if code >= 0 else 128 - code}\n".encode())
    except OSError:
        pass
    conn.close()


def end_every_run(signum, frame):
    for pid in list(runs):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os._exit(0)


signal.signal(signal.SIGTERM, end_every_run)


def become_run(request, fds):
    os.setsid()
    # Move the received descriptors out of the way, then onto the numbers the runner
    # gave them (0-2 and the two pipes), which may collide with the received ones.
    high = [os.dup(fd) for fd in fds]
    for fd in fds:
        os.close(fd)
    for fd, target in zip(high, request["targets"]):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    argv = request["argv"]
    code = 1
    try:
        # As `python SCRIPT ...`, `python -c CODE ...` and `python -m MODULE ...` set them.
        if argv[0] == "-c":
            sys.argv = ["-c", *argv[2:]]
            sys.path[0] = ""
            exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        elif argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        elif argv[0].startswith("-"):
            print(f"warm python: option {argv[0]} is not supported", file=sys.stderr)
            raise SystemExit(2)
        else:
            sys.argv = argv
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:  # sys.exit("message"): printed, status 1
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


while True:
    conn, _ = listener.accept()
    data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 8)
    while not data.endswith(b"\n"):
        data += conn.recv(1 << 20)
    request = json.loads(data)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        listener.close()
        conn.close()
        become_run(request, fds)
    runs.add(pid)
    for fd in fds:
        os.close(fd)
    threading.Thread(target=reply_when_done, args=(conn, pid), daemon=True).start()
"""


class WarmPython:
    """The server process and the shim that stands in for Python; a context manager."""

    def __init__(
        self,
        startup_timeout_s: float = 300,
        preload: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        torch: bool = True,
    ):
        """`preload`: modules the server imports once (what every run imports anyway);
        `env`: added to the server's environment for those imports (each run still gets
        its own shim's environment); `torch=False`: a server that does not import torch
        (the language server's, which never imports it)."""
        self._dir = tempfile.TemporaryDirectory(prefix="warm-python-")
        directory = Path(self._dir.name)
        socket_path = str(directory / "server.sock")
        self.shim = directory / "python"
        self.shim.write_text(SHIM.format(python=sys.executable, socket_path=socket_path))
        self.shim.chmod(0o755)
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1", **(env or {})}
        env["WARM_PYTHON_TORCH"] = "1" if torch else "0"
        self.server = subprocess.Popen(
            [sys.executable, "-c", SERVER, socket_path, *preload],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        deadline = time.monotonic() + startup_timeout_s
        line = self.server.stdout.readline()  # blocks until torch is imported
        while line and line.strip() != "ready":  # what a preloaded module printed (deepxde)
            line = self.server.stdout.readline()
        if line.strip() != "ready" or time.monotonic() > deadline:
            self.close()
            raise RuntimeError(f"the warm interpreter did not start: {line!r}")

    def close(self) -> None:
        self.server.terminate()  # it ends the runs still going, then itself
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self._dir.cleanup()

    def __enter__(self) -> WarmPython:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":  # a quick look: python warm_python.py SCRIPT
    from autograd_lint.runtime.runner import RuntimeOptions, confirm

    with WarmPython() as warm:
        print(confirm(Path(sys.argv[1]), [], RuntimeOptions(python=str(warm.shim)))[0])
    sys.exit(0)

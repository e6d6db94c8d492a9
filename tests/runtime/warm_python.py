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
import json, os, runpy, socket, sys, threading, traceback
import torch

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


def reply_when_done(conn, pid):
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    conn.sendall(f"{code if code >= 0 else 128 - code}\n".encode())
    conn.close()


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
    sys.argv = request["argv"]
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    code = 1
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
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
        listener.close()
        conn.close()
        become_run(request, fds)
    for fd in fds:
        os.close(fd)
    threading.Thread(target=reply_when_done, args=(conn, pid), daemon=True).start()
"""


class WarmPython:
    """The server process and the shim that stands in for Python; a context manager."""

    def __init__(self, startup_timeout_s: float = 300):
        self._dir = tempfile.TemporaryDirectory(prefix="warm-python-")
        directory = Path(self._dir.name)
        socket_path = str(directory / "server.sock")
        self.shim = directory / "python"
        self.shim.write_text(SHIM.format(python=sys.executable, socket_path=socket_path))
        self.shim.chmod(0o755)
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
        self.server = subprocess.Popen(
            [sys.executable, "-c", SERVER, socket_path],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        deadline = time.monotonic() + startup_timeout_s
        line = self.server.stdout.readline()  # blocks until torch is imported
        if line.strip() != "ready" or time.monotonic() > deadline:
            self.close()
            raise RuntimeError(f"the warm interpreter did not start: {line!r}")

    def close(self) -> None:
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

"""The warm interpreter runs programs as a fresh `python` does: same output, status, argv.

Tests that need torch's verdict on a program run it through `torch_python` (tests/
conftest.py), a shim that forks the run from a server with torch imported. Each case here
runs the same command both ways and compares what a test could look at.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from runtime_support import process_gone

SCRIPT = """
import os, sys
print("argv", sys.argv[1:])
print("cwd", os.path.basename(os.getcwd()))
print("env", os.environ.get("WARM_PYTHON_PROBE"))
print("path0", os.path.basename(sys.path[0]))
print("main", __name__)
print("stdin", sys.stdin.read().strip())
print("err", file=sys.stderr)
"""
TORCH_SCRIPT = """
import torch
x = torch.ones(3, requires_grad=True)
y = (x * 2).sum()
y.backward()
print(x.grad.tolist())
y.backward()
"""


def both(command: list[str], torch_python: str, tmp_path, **kwargs):
    """The command run by a fresh interpreter and by the warm one."""
    kwargs = {"capture_output": True, "text": True, "timeout": 120, "cwd": tmp_path, **kwargs}
    fresh = subprocess.run([sys.executable, *command], **kwargs)
    warm = subprocess.run([torch_python, *command], **kwargs)
    return fresh, warm


def same(fresh, warm) -> None:
    assert (warm.returncode, warm.stdout) == (fresh.returncode, fresh.stdout)
    assert warm.stderr.splitlines()[-1:] == fresh.stderr.splitlines()[-1:]


@pytest.mark.parametrize("form", ["script", "-c", "-m"], ids=["script", "dash-c", "dash-m"])
def test_each_form_sees_the_same_argv_cwd_env_and_stdin(form, torch_python, tmp_path):
    (tmp_path / "probe_module.py").write_text(SCRIPT)
    head = {
        "script": [str(tmp_path / "probe_module.py")],
        "-c": ["-c", SCRIPT],
        "-m": ["-m", "probe_module"],
    }[form]
    env = {**os.environ, "WARM_PYTHON_PROBE": "seen"}
    fresh, warm = both([*head, "a", "b c"], torch_python, tmp_path, env=env, input="fed\n")
    same(fresh, warm)
    assert "argv ['a', 'b c']" in warm.stdout and "stdin fed" in warm.stdout
    assert "env seen" in warm.stdout and warm.stderr.strip().endswith("err")


@pytest.mark.parametrize(
    ("source", "status"),
    [
        ("import sys\nsys.exit(3)\n", 3),
        ("import sys\nsys.exit('stopped: no data')\n", 1),
        ("def f():\n    raise ValueError('boom')\n\n\nf()\n", 1),
        ("import sys\nsys.exit()\n", 0),
    ],
    ids=["exit-3", "exit-message", "raises", "exit-none"],
)
def test_exit_status_and_last_error_line_match(source, status, torch_python, tmp_path):
    script = tmp_path / "ends.py"
    script.write_text(source)
    fresh, warm = both([str(script)], torch_python, tmp_path)
    same(fresh, warm)
    assert warm.returncode == status
    if "raise" in source:
        assert f'"{script}", line 2' in warm.stderr


def test_torch_raises_the_same_error_from_the_same_line(torch_python, tmp_path):
    script = tmp_path / "twice.py"
    script.write_text(TORCH_SCRIPT)
    fresh, warm = both([str(script)], torch_python, tmp_path)
    same(fresh, warm)
    assert "backward through the graph a second time" in warm.stderr
    assert f'"{script}", line 7' in warm.stderr


def test_a_run_whose_shim_is_killed_ends_too(torch_python, tmp_path):
    # What a test's timeout does: subprocess.run kills the process it started, the shim.
    pid_file = tmp_path / "pid"
    code = f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)"
    shim = subprocess.Popen([torch_python, "-c", code])
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    assert pid != shim.pid and not process_gone(pid)
    shim.kill()
    shim.wait()
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_gone(pid)

"""Runs a user's script with autograd instrumentation and reports what its backward calls meet.

    python -m autograd_lint.runtime.harness --script train.py --loop-lines 30:41 \
        --result-fd 5 -- --epochs 1

This file is also run by path (`python .../harness.py`) with the user's own interpreter,
which may not have autograd-lint installed: it imports only the standard library, torch
(after the script's device is fixed) and its siblings `_instrumentation.py` (the wrapped
backward calls and the verdict), `_graph.py`, `_tracer.py`, `_lines.py`, `_calls.py` and
`_preload.py` (a warm child's imports), and keeps to Python 3.8 syntax.

`harness.py --warm ...` is a warm child (runtime/warm.py): it imports first, then waits for
its run's arguments on the watch pipe.

Results go to a dedicated channel (`--result-fd`, an inherited pipe, or `--result-file`) as
JSON lines, so nothing the script prints can corrupt them. The last line is the verdict:
`{"event": "verdict", "status": "confirmed" | "not-reproduced" | "error", ...}`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import queue
import runpy
import signal
import sys
import threading
import time
import traceback


class ResultChannel:
    def __init__(self, fd=None, path=None):
        self._fd = fd
        self._file = open(path, "a", encoding="utf-8") if path else None  # noqa: SIM115
        if fd is not None:
            # The script's own subprocesses must not hold the write end open.
            os.set_inheritable(fd, False)

    def send(self, event, **fields):
        fields["event"] = event
        line = json.dumps(fields, default=str) + "\n"
        if self._fd is not None:
            data = line.encode("utf-8")
            while data:
                data = data[os.write(self._fd, data) :]
        if self._file is not None:
            self._file.write(line)
            self._file.flush()


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="autograd_lint.runtime.harness")
    parser.add_argument("--script", required=True)
    parser.add_argument("--lines", default="", help="backward lines of interest: L1,L2")
    parser.add_argument("--loop-lines", default="", help="loops as START:END,...")
    parser.add_argument("--max-steps", type=int, default=5)
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda:N")
    parser.add_argument(
        "--no-intercept",
        action="store_true",
        help="let a failing backward run and report torch's own error (to check the probe)",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="after a failing backward, skip it and go on (up to --max-steps calls)",
    )
    parser.add_argument(
        "--trace-lines",
        action="store_true",
        help="follow the script's lines with sys.settrace instead of compiling recording "
        "calls into it (slower: everything the process runs is traced)",
    )
    parser.add_argument(
        "--bare-stop",
        type=int,
        metavar="N",
        help="measuring only: no tracing, no graph walks; stop before backward call N "
        "(what the script costs on its own up to there)",
    )
    parser.add_argument("--result-fd", type=int)
    parser.add_argument(
        "--watch-fd", type=int, help="a pipe from the runner: at its end, stop everything"
    )
    parser.add_argument("--result-file")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.script_args[:1] == ["--"]:
        args.script_args = args.script_args[1:]
    args.lines = {int(x) for x in args.lines.split(",") if x.strip()}
    loops = []
    for item in args.loop_lines.split(","):
        if item.strip():
            start, _, end = item.partition(":")
            loops.append((int(start), int(end or start)))
    args.loop_lines = loops
    return args


def fix_device(device):
    """Pins CUDA visibility before torch is imported: `cpu` hides every GPU."""
    if device == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    elif device.startswith("cuda:") and "AUTOGRAD_LINT_DEVICE_PINNED" not in os.environ:
        os.environ["CUDA_VISIBLE_DEVICES"] = device.split(":", 1)[1]


def load_sibling(name):
    """Imports a helper next to this file under a private name, whatever the interpreter's path."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location("autograd_lint_harness" + name, path)
    if spec.name in sys.modules:  # a warm child loaded it before its request came
        return sys.modules[spec.name]
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def summarize_exception(script, error):
    tb = traceback.extract_tb(error.__traceback__)
    lines = [f.lineno for f in tb if f.filename == script]
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    return text, (lines[-1] if lines else None)


def watch_runner(fd, requests=None):
    """Kill this process group once the runner's end of the pipe closes.

    The runner (the CLI or the language server) holds the only write end: when it exits,
    crashes or is killed, the read sees end of file, and the script, its children and
    their children (the group this harness leads) go with it, whatever they were doing
    (holding a GPU, sleeping, ignoring signals). A warm child's request comes down the
    same pipe, as its first line, handed to `requests` (a queue)."""

    def wait():
        line = b"" if requests is not None else None
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                if line is not None:
                    line += chunk
                    if b"\n" in line:
                        requests.put(line.partition(b"\n")[0])
                        line = None
        except OSError:
            pass
        if os.getpgrp() == os.getpid():  # the leader of its own group, as the runner starts it
            os.killpg(os.getpgrp(), signal.SIGKILL)
        os._exit(3)

    threading.Thread(target=wait, name="autograd-lint-watchdog", daemon=True).start()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.watch_fd is not None:
        watch_runner(args.watch_fd)
    channel = ResultChannel(args.result_fd, args.result_file)
    script = os.path.realpath(args.script)
    if not os.path.isfile(script):
        channel.send("verdict", status="error", detail=f"script not found: {args.script}")
        return 2
    fix_device(args.device)
    # Import torch as the script would: from its folder, not from this package's.
    sys.path[0] = os.path.dirname(script)
    try:
        import torch
    except Exception as error:
        channel.send("verdict", status="error", detail=f"cannot import torch: {error}")
        return 2
    graph = load_sibling("_graph")
    tracer_module = load_sibling("_tracer")
    instrumented = load_sibling("_instrumentation")
    channel.send("start", pid=os.getpid(), torch=torch.__version__, python=sys.version.split()[0])
    tracer = code = None
    if not args.bare_stop:
        tracer = tracer_module.ScriptTracer(
            script, args.loop_lines, torch._C._autograd._get_sequence_nr
        )
        lines = load_sibling("_lines")
        code = None if args.trace_lines else lines.instrumented_code(script)
    instrumentation = instrumented.Instrumentation(
        torch, graph, args, script, channel, tracer, load_sibling("_calls")
    )
    instrumented.install(torch, instrumentation)

    # Look like `python script.py` run from the script's folder.
    sys.argv = [script] + list(args.script_args)
    outcome = 0
    if code is not None:
        tracer.start_recording(lines, code[1])
    elif tracer is not None:
        tracer.start()
    try:
        if code is not None:
            lines.run_as_main(code[0], script)
        else:
            runpy.run_path(script, run_name="__main__")
    except instrumented.HarnessStop:
        pass
    except SystemExit as exit_:
        code = exit_.code
        if code not in (None, 0):
            detail = f"script exited with status {code}"
            instrumentation.finish_run("error", detail, exit_code=code)
    except BaseException as error:  # noqa: BLE001 - any crash of the script is a verdict
        if tracer is not None:
            tracer.stop()
        text, line = summarize_exception(script, error)
        where = f" at line {line}" if line else ""
        instrumentation.finish_run("error", f"script failed{where}: {text}", line=line)
        outcome = 1
    finally:
        if tracer is not None:
            tracer.stop()
    if not instrumentation.verdict_sent:
        count = instrumentation.calls
        if count == 0:
            detail = "not reproduced: the script finished without calling backward"
        else:
            plural = "" if count == 1 else "s"
            detail = f"not reproduced: the script finished after {count} backward call{plural}"
        instrumentation.finish_run("not-reproduced", detail)
    return outcome


def warm_main(argv):
    """A warm child (runtime/warm.py): import torch, the harness's helpers and the script's
    leading installed imports, then wait for one request and run it as `main` would.

    Started like a cold run (the script's folder, environment and interpreter, a session of
    its own, the result and watch pipes); the request, the first line on the watch pipe, is
    the argument list a cold run gets (JSON), less its channel."""
    parser = argparse.ArgumentParser(prog="autograd_lint.runtime.harness --warm")
    parser.add_argument("--script", required=True)
    parser.add_argument("--preload", default="")
    parser.add_argument("--result-fd", type=int, required=True)
    parser.add_argument("--watch-fd", type=int, required=True)
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    requests = queue.Queue()
    watch_runner(args.watch_fd, requests)
    channel = ResultChannel(args.result_fd)
    script = os.path.realpath(args.script)
    folder = os.path.dirname(script)
    sys.path[0] = folder
    # What the script's own imports would see, as in the run that follows.
    script_args = args.script_args[1:] if args.script_args[:1] == ["--"] else args.script_args
    sys.argv = [script] + script_args
    preloaded, problem = [], None
    try:
        import torch

        preload = load_sibling("_preload")
        preload.warm_torch(torch)
        for name in ("_graph", "_tracer", "_instrumentation", "_lines", "_calls"):
            load_sibling(name)
        names = [n for n in args.preload.split(",") if n]
        preloaded, problem = preload.import_leading(names, folder)
    except BaseException as error:  # noqa: BLE001 - the runner then starts a cold run
        problem = f"{type(error).__name__}: {error}"
    channel.send("warm-ready", ok=problem is None, preloaded=preloaded, detail=problem)
    request = requests.get()  # or the runner drops this child: the watchdog ends it
    channel.send("warm-request", cpu_seconds=time.process_time())
    return main(["--result-fd", str(args.result_fd)] + json.loads(request)["argv"])


if __name__ == "__main__":
    code = warm_main(sys.argv[2:]) if sys.argv[1:2] == ["--warm"] else main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    # Skip interpreter shutdown: a stopped script may leave threads or workers behind.
    os._exit(code)

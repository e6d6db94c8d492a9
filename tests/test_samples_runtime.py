"""Ground truth for the samples: run each one with torch and check its marks.

A sample marked `# expect: AG001` or `# expect: AG002` must die with PyTorch's
"backward through the graph a second time" error, raised from the marked line. One
marked AG007 must die with the "modified by an inplace operation" error (raised by a
later backward, not on the marked line). Every other sample must run to completion:
AG003..AG006 are warnings about code that runs. The static analysis is then held to
the same marks (test_samples_static.py), so these runs are what keeps the marks honest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from expectations import expected_marks

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"
SAMPLES = sorted(SAMPLES_DIR.glob("*.py"))
# Multi-file samples (project_*/) are run from their entry scripts; test_cross_file.py
# checks their analysis.
RUNNABLE = SAMPLES + sorted(SAMPLES_DIR.glob("project_*/train_*.py"))
RUNTIME_CODES = {"AG001", "AG002"}
GRAPH_FREED = "RuntimeError: Trying to backward through the graph a second time"
MODIFIED_INPLACE = (
    "RuntimeError: one of the variables needed for gradient computation has been modified"
    " by an inplace operation"
)
# Generous: a sample's own work takes well under a second, but the machine is shared.
TIMEOUT_S = 60
STARTUP_TIMEOUT_S = 180  # importing torch, on a busy machine
MIN_PAIRS = 12

_NAME = re.compile(r"(?:ag(?P<code>\d{3})_[a-z0-9_]+_(?P<kind>buggy|fixed)|clean_[a-z0-9_]+)\.py")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)', re.MULTILINE)

# Imports torch once, then runs each sample as `__main__` in a forked child with its
# own stdout/stderr files and exit status (written to <index>.out/.err/.rc). A fresh
# interpreter per sample spends nearly all its time importing torch: over ten minutes
# for the set on a busy two-core machine, against seconds this way.
# test_forked_runs_match_a_fresh_interpreter keeps the two ways of running in step.
_FORK_RUNNER = r"""
import os, runpy, signal, sys, time, traceback
import torch

# The first optimizer step pulls in more of torch lazily (sympy among it, seconds of
# work): pay that once here, not in every child.
warm_model = torch.nn.Linear(2, 1)
warm_optimizer = torch.optim.Adam(warm_model.parameters())
warm_model(torch.ones(1, 2)).sum().backward()
warm_optimizer.step()

out_dir, timeout_s, samples = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
for index, sample in enumerate(samples):
    stem = os.path.join(out_dir, str(index))
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd, suffix in ((1, ".out"), (2, ".err")):
                os.dup2(os.open(stem + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.argv = [sample]
            sys.path[0] = os.path.dirname(sample)
            os.chdir(os.path.dirname(sample))
            runpy.run_path(sample, run_name="__main__")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            result = str(os.waitstatus_to_exitcode(status))
            break
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            result = "timeout"
            break
        time.sleep(0.01)
    with open(stem + ".rc", "w") as rc_file:
        rc_file.write(result)
"""


@dataclass(frozen=True)
class Run:
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str


def sample_env() -> dict[str, str]:
    return {
        **os.environ,
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONDONTWRITEBYTECODE": "1",
        # The models are tiny: extra intra-op threads only fight other processes.
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def run_samples(paths: list[Path], work_dir: Path) -> dict[Path, Run]:
    """Run every script in `paths`, each in its own forked child process."""
    if not paths:
        return {}
    runner = subprocess.run(
        [sys.executable, "-c", _FORK_RUNNER, str(work_dir), str(TIMEOUT_S), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT_S + TIMEOUT_S * len(paths),
        env=sample_env(),
    )
    assert runner.returncode == 0, f"the sample runner itself failed:\n{runner.stderr}"
    runs = {}
    for index, path in enumerate(paths):
        status = (work_dir / f"{index}.rc").read_text()
        runs[path] = Run(
            None if status == "timeout" else int(status),
            (work_dir / f"{index}.out").read_text(),
            (work_dir / f"{index}.err").read_text(),
        )
    return runs


def run_in_fresh_interpreter(path: Path) -> Run:
    proc = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT_S + TIMEOUT_S,
        env=sample_env(),
        cwd=path.parent,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def innermost_line_in(stderr: str, path: Path) -> int | None:
    """Line of the innermost frame in `path` of the last traceback in `stderr`."""
    last_traceback = stderr.rsplit("Traceback (most recent call last):", 1)[-1]
    lines = [
        int(match["line"])
        for match in _FRAME.finditer(last_traceback)
        if Path(match["file"]).resolve() == path.resolve()
    ]
    return lines[-1] if lines else None


def runtime_marks(path: Path) -> list[tuple[int, str]]:
    return [mark for mark in expected_marks(path.read_text()) if mark[1] in RUNTIME_CODES]


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


@pytest.fixture(scope="module")
def sample_runs(request, tmp_path_factory) -> dict[Path, Run]:
    # Run, in one go, every sample whose runtime test this session selected.
    selected = {
        item.callspec.params["sample"]
        for item in request.session.items
        if "sample_runs" in getattr(item, "fixturenames", ()) and hasattr(item, "callspec")
    }
    return run_samples(sorted(selected), tmp_path_factory.mktemp("sample-runs"))


@pytest.mark.parametrize(
    "sample", RUNNABLE, ids=[path.relative_to(SAMPLES_DIR).as_posix() for path in RUNNABLE]
)
def test_sample_fails_exactly_where_marked(sample: Path, sample_runs: dict[Path, Run]) -> None:
    run = sample_runs[sample]
    assert run.returncode is not None, f"{sample.name} did not finish in {TIMEOUT_S}s"
    marks = runtime_marks(sample)
    if not marks:
        if any(code == "AG007" for _line, code in expected_marks(sample.read_text())):
            assert last_line(run.stderr).startswith(MODIFIED_INPLACE), run.stderr
        else:
            assert run.returncode == 0, f"{sample.name} should run cleanly:\n{run.stderr}"
        return
    assert len(marks) == 1, "only the first failing backward raises, so one mark per sample"
    (marked_line, _code) = marks[0]
    assert run.returncode != 0, f"{sample.name} ran cleanly but is marked at line {marked_line}"
    assert last_line(run.stderr).startswith(GRAPH_FREED), (
        f"{sample.name} failed otherwise:\n{run.stderr}"
    )
    assert innermost_line_in(run.stderr, sample) == marked_line, run.stderr


def test_samples_are_named_and_paired() -> None:
    names = {path.name for path in SAMPLES}
    for name in names:
        assert _NAME.fullmatch(name), (
            f"{name}: use agNNN_<pattern>_buggy/fixed.py or clean_<pattern>.py"
        )
    buggy = {name for name in names if name.endswith("_buggy.py")}
    for name in buggy:
        assert name.replace("_buggy.py", "_fixed.py") in names, f"{name} has no fixed twin"
    for name in names - buggy:
        if name.endswith("_fixed.py"):
            assert name.replace("_fixed.py", "_buggy.py") in names, f"{name} has no buggy twin"
    assert len(buggy) >= MIN_PAIRS


@pytest.mark.parametrize("sample", SAMPLES, ids=[path.name for path in SAMPLES])
def test_sample_marks_match_its_name(sample: Path) -> None:
    name = _NAME.fullmatch(sample.name)
    assert name, sample.name
    codes = [code for _line, code in expected_marks(sample.read_text())]
    runtime_codes = [code for code in codes if code in RUNTIME_CODES]
    if name["kind"] == "buggy":
        own = f"AG{name['code']}"
        assert own in codes, f"a {own} sample must mark a {own} finding"
        # Only the first failing backward ever runs: at most one runtime mark, and the
        # sample's own when it is an AG001/AG002 sample. Warnings may come with it.
        assert len(runtime_codes) <= 1
        if own in RUNTIME_CODES:
            assert runtime_codes == [own]
    else:
        assert codes == [], "fixed and clean samples must stay clean"


def test_traceback_parsing_takes_the_innermost_frame_of_the_last_traceback(tmp_path: Path) -> None:
    sample = tmp_path / "demo.py"
    other = tmp_path / "helper.py"
    stderr = (
        "Traceback (most recent call last):\n"
        f'  File "{sample}", line 3, in <module>\n'
        "ValueError: first\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        f'  File "{sample}", line 9, in <module>\n'
        f'  File "{sample}", line 5, in step\n'
        f'  File "{other}", line 40, in backward\n'
        f"{GRAPH_FREED} (or directly access saved tensors)\n"
    )
    assert innermost_line_in(stderr, sample) == 5
    assert innermost_line_in(stderr, tmp_path / "absent.py") is None


def test_readme_lists_every_sample() -> None:
    readme = (SAMPLES_DIR / "README.md").read_text()
    for path in SAMPLES:
        pattern = re.sub(r"_(buggy|fixed)$", "", path.stem)
        assert f"`{pattern}`" in readme, f"samples/README.md does not list {pattern}"


# A failure raised two frames deep, and a clean run with output.
FIDELITY_SAMPLES = [
    SAMPLES_DIR / "ag001_helper_step_buggy.py",
    SAMPLES_DIR / "clean_lbfgs_closure.py",
]


@pytest.mark.parametrize("sample", FIDELITY_SAMPLES, ids=[path.name for path in FIDELITY_SAMPLES])
def test_forked_runs_match_a_fresh_interpreter(sample: Path, sample_runs: dict[Path, Run]) -> None:
    forked = sample_runs[sample]
    fresh = run_in_fresh_interpreter(sample)
    assert forked.returncode is not None
    assert (forked.returncode == 0) == (fresh.returncode == 0)
    assert forked.stdout == fresh.stdout
    assert innermost_line_in(forked.stderr, sample) == innermost_line_in(fresh.stderr, sample)
    assert last_line(forked.stderr) == last_line(fresh.stderr)


def test_runner_reports_exit_status_output_and_timeouts(tmp_path: Path, monkeypatch) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    ok = scripts / "ok.py"
    ok.write_text("print('hello')\n")
    exits = scripts / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    raises = scripts / "raises.py"
    raises.write_text("def f():\n    raise ValueError('boom')\n\n\nf()\n")
    hangs = scripts / "hangs.py"
    hangs.write_text("import time\ntime.sleep(30)\n")
    monkeypatch.setattr(sys.modules[__name__], "TIMEOUT_S", 1)
    work = tmp_path / "work"
    work.mkdir()
    runs = run_samples([ok, exits, raises, hangs], work)
    assert runs[ok] == Run(0, "hello\n", "")
    assert runs[exits].returncode == 3
    assert runs[raises].returncode == 1
    assert runs[raises].stderr.strip().endswith("ValueError: boom")
    assert innermost_line_in(runs[raises].stderr, raises) == 2
    assert runs[hangs].returncode is None

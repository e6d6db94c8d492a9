"""Ground truth for the samples: run each one with torch and check its marks.

A sample marked `# expect: AG001` or `# expect: AG002` must die with PyTorch's
"backward through the graph a second time" error, raised from the marked line;
every other sample must run to completion. The static analysis is then held to
the same marks (test_samples_static.py), so these runs are what keeps the marks honest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from multiprocessing.pool import ThreadPool
from pathlib import Path

import pytest
from expectations import expected_marks

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"
SAMPLES = sorted(SAMPLES_DIR.glob("*.py"))
RUNTIME_CODES = {"AG001", "AG002"}
GRAPH_FREED = "RuntimeError: Trying to backward through the graph a second time"
# Generous: a sample takes a couple of seconds, most of it importing torch, but the
# machine is shared.
TIMEOUT_S = 120
MIN_PAIRS = 12

_NAME = re.compile(r"(?:ag(?P<code>\d{3})_[a-z0-9_]+_(?P<kind>buggy|fixed)|clean_[a-z0-9_]+)\.py")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)', re.MULTILINE)


@dataclass(frozen=True)
class Run:
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str


def run_sample(path: Path) -> Run:
    env = {
        **os.environ,
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONDONTWRITEBYTECODE": "1",
        # The models are tiny: extra intra-op threads only fight the other run.
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    try:
        proc = subprocess.run(
            [sys.executable, str(path)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=env,
            cwd=path.parent,
        )
    except subprocess.TimeoutExpired as exc:
        return Run(None, str(exc.stdout or ""), str(exc.stderr or ""))
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


@pytest.fixture(scope="module")
def sample_runs(request) -> dict[Path, Run]:
    # Run every sample this session selected up front, two at a time: each run is
    # mostly torch's import, and the machine has two cores.
    selected = set()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if item.module is sys.modules[__name__] and callspec and "sample" in callspec.params:
            selected.add(callspec.params["sample"])
    ordered = sorted(selected)
    with ThreadPool(2) as pool:
        return dict(zip(ordered, pool.map(run_sample, ordered), strict=True))


@pytest.mark.parametrize("sample", SAMPLES, ids=[path.name for path in SAMPLES])
def test_sample_fails_exactly_where_marked(sample: Path, sample_runs: dict[Path, Run]) -> None:
    run = sample_runs[sample]
    assert run.returncode is not None, f"{sample.name} did not finish in {TIMEOUT_S}s"
    marks = runtime_marks(sample)
    if not marks:
        assert run.returncode == 0, f"{sample.name} should run cleanly:\n{run.stderr}"
        return
    assert len(marks) == 1, "only the first failing backward raises, so one mark per sample"
    (marked_line, _code) = marks[0]
    assert run.returncode != 0, f"{sample.name} ran cleanly but is marked at line {marked_line}"
    last_line = run.stderr.strip().splitlines()[-1]
    assert last_line.startswith(GRAPH_FREED), f"{sample.name} failed otherwise:\n{run.stderr}"
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
    if name["kind"] == "buggy":
        assert codes == [f"AG{name['code']}"]
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

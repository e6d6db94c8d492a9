"""Precision and recall on the realistic corpus in tests/corpus/.

Every corpus file marks each failing backward with `# expect: AG001` (or AG002), and
a syntax error with `# expect: AG000`; a file without marks must stay clean. The
static half holds `analyze` to those marks. The runtime half keeps the marks honest:
each file whose first line is `# runnable` is executed with torch on the CPU and
must fail exactly where marked (or run cleanly, or raise the error its first line
names: `# runnable: raises "<text>"`).

Run as a script (`python tests/test_corpus.py OUT.json FILE...`) this module is the
runner for the runtime half: one interpreter imports torch once and runs every file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from expectations import expected_marks

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
CORPUS = sorted(CORPUS_DIR.glob("*.py"))
STATIC_CODES = {"AG000", "AG001", "AG002"}
RUNTIME_CODES = {"AG001", "AG002"}
GRAPH_FREED = "Trying to backward through the graph a second time"
RUNNABLE = re.compile(r'# runnable(?::\s*raises\s+"(?P<raises>[^"]+)")?\s*$')
RUNNER_TIMEOUT_S = 300
MIN_FILES = 30


def runnable_header(path: Path) -> re.Match | None:
    with path.open(encoding="utf-8") as handle:
        return RUNNABLE.fullmatch(handle.readline().rstrip("\n"))


def marks(path: Path, codes: set[str]) -> list[tuple[int, str]]:
    return [mark for mark in expected_marks(path.read_text(encoding="utf-8")) if mark[1] in codes]


def reported(path: Path) -> list[tuple[int, str]]:
    from autograd_lint.analysis import analyze

    findings = analyze(path.read_text(encoding="utf-8"), str(path))
    return sorted((f.span.start.line, f.code) for f in findings if f.code in STATIC_CODES)


RUNNABLE_FILES = [path for path in CORPUS if runnable_header(path)]


# -- static: analyze() against the marks ------------------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_findings_match_marks(path: Path) -> None:
    assert reported(path) == marks(path, STATIC_CODES)


def test_precision_and_recall_over_the_corpus() -> None:
    true_positive = false_positive = false_negative = 0
    misses = []
    for path in CORPUS:
        expected, got = set(marks(path, STATIC_CODES)), set(reported(path))
        true_positive += len(expected & got)
        false_positive += len(got - expected)
        false_negative += len(expected - got)
        misses += [f"{path.name}:{line} {code} missed" for line, code in sorted(expected - got)]
        misses += [f"{path.name}:{line} {code} spurious" for line, code in sorted(got - expected)]
    precision = true_positive / max(true_positive + false_positive, 1)
    recall = true_positive / max(true_positive + false_negative, 1)
    summary = (
        f"corpus: {len(CORPUS)} files, TP={true_positive} FP={false_positive} "
        f"FN={false_negative}, precision={precision:.2f} recall={recall:.2f}"
    )
    print(summary)
    assert (false_positive, false_negative) == (0, 0), "\n".join([summary, *misses])


def test_corpus_covers_both_bugs_and_clean_code() -> None:
    marked = [path for path in CORPUS if marks(path, RUNTIME_CODES)]
    unmarked = [path for path in CORPUS if not marks(path, STATIC_CODES)]
    assert len(CORPUS) >= MIN_FILES
    assert {code for path in marked for _, code in marks(path, RUNTIME_CODES)} == RUNTIME_CODES
    assert len(marked) >= 10 and len(unmarked) >= 10


def test_readme_lists_every_file_and_its_verification() -> None:
    readme = (CORPUS_DIR / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\|\s*`([\w.]+\.py)`\s*\|\s*(yes|no)\s*\|", readme, re.MULTILINE))
    assert set(rows) == {path.name for path in CORPUS}
    for path in CORPUS:
        verified = rows[path.name] == "yes"
        assert verified == bool(runnable_header(path)), path.name


# -- runtime: torch agrees with the marks -----------------------------------------------


def failing_line(frames: list, path: Path) -> int | None:
    """The line in `path` that called into torch's backward, else its innermost frame.

    The innermost frame alone misleads when the file defines an autograd.Function:
    the engine calls back into the file's own `backward`, which is where the freed
    saved tensors are read.
    """

    def in_file(frame) -> bool:
        return Path(frame.filename).resolve() == path.resolve()

    for index, frame in enumerate(frames):
        if frame.name == "backward" and "torch" in Path(frame.filename).parts:
            callers = [f for f in frames[:index] if in_file(f)]
            if callers:
                return callers[-1].lineno
    inside = [f for f in frames if in_file(f)]
    return inside[-1].lineno if inside else None


def run_files(paths: list[str]) -> dict[str, dict]:
    """Execute each file as __main__ in this process; report how each one ended."""
    import contextlib
    import io
    import runpy
    import traceback

    import torch

    torch.set_num_threads(1)
    outcomes = {}
    for name in paths:
        outcome = {"error": None, "message": "", "line": None}
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                runpy.run_path(name, run_name="__main__")
        except BaseException as exc:  # SystemExit and KeyboardInterrupt are outcomes too
            outcome = {
                "error": type(exc).__name__,
                "message": str(exc),
                "line": failing_line(traceback.extract_tb(exc.__traceback__), Path(name)),
            }
        outcomes[name] = outcome
    return outcomes


@pytest.fixture(scope="module")
def runtime_outcomes() -> dict[str, dict]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "outcomes.json"
        command = [sys.executable, __file__, str(report), *map(str, RUNNABLE_FILES)]
        proc = subprocess.run(
            command,
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUNNER_TIMEOUT_S,
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(report.read_text())


@pytest.mark.parametrize("path", RUNNABLE_FILES, ids=[path.name for path in RUNNABLE_FILES])
def test_runtime_behaviour_matches_marks(path: Path, runtime_outcomes: dict[str, dict]) -> None:
    outcome = runtime_outcomes[str(path)]
    expected = marks(path, RUNTIME_CODES)
    raises = runnable_header(path)["raises"]
    if expected:
        assert raises is None, "a file raises either the marked graph error or another one"
        assert len(expected) == 1, "only the first failing backward raises: one mark per file"
        assert outcome["error"] == "RuntimeError", outcome
        assert GRAPH_FREED in outcome["message"], outcome
        assert outcome["line"] == expected[0][0], outcome
    elif raises:
        assert outcome["error"] == "RuntimeError", outcome
        assert raises in outcome["message"], outcome
        assert GRAPH_FREED not in outcome["message"], outcome
    else:
        assert outcome["error"] is None, outcome


def test_failing_line_is_the_call_into_backward_not_a_custom_function(tmp_path: Path) -> None:
    from traceback import FrameSummary

    script = tmp_path / "snippet.py"
    torch_dir = tmp_path / "site-packages" / "torch"
    chain = [
        FrameSummary(str(script), 40, "<module>"),
        FrameSummary(str(script), 12, "update"),
        FrameSummary(str(torch_dir / "_tensor.py"), 600, "backward"),
        FrameSummary(str(torch_dir / "autograd" / "function.py"), 300, "apply"),
        FrameSummary(str(script), 5, "backward"),  # the file's own autograd.Function
    ]
    assert failing_line(chain, script) == 12
    assert failing_line(chain[:2], script) == 12  # no torch frame: the innermost one
    assert failing_line(chain[2:4], script) is None


if __name__ == "__main__":
    out_path, *files = sys.argv[1:]
    Path(out_path).write_text(json.dumps(run_files(files)))

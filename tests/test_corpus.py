"""Precision and recall on the realistic corpus in tests/corpus/.

Every corpus file marks each finding it should get with `# expect: AG00N` (any rule:
a failing backward AG001/AG002, a syntax error AG000, an in-place change AG007, the
warnings AG003-AG006); a file without marks must get no finding at all. The static half
holds `analyze` to those marks, every rule's findings included. The runtime half
labels each file whose first line is `# runnable` by what torch does with it on the CPU
and compares the analyzer's verdict with that label: a file that raises the graph-freed
error must carry its one AG001/AG002 mark on the raising line; one that raises the
in-place error must get an AG007 whose failing step is the raising line; one that runs
cleanly must carry no AG001/AG002/AG007 mark. `# runnable: raises "<text>"` names the
error a file raises when it is not the graph-freed one.

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
STATIC_CODES = {f"AG00{n}" for n in range(8)}  # every rule
RUNTIME_CODES = {"AG001", "AG002"}
ERROR_CODES = {"AG001", "AG002", "AG007"}  # the rules whose finding means a crash
GRAPH_FREED = "Trying to backward through the graph a second time"
MODIFIED = "modified by an inplace operation"
RUNNABLE = re.compile(r'# runnable(?::\s*raises\s+"(?P<raises>[^"]+)")?\s*$')
RUNNER_TIMEOUT_S = 300
MIN_FILES = 30


def runnable_header(path: Path) -> re.Match | None:
    with path.open(encoding="utf-8") as handle:
        return RUNNABLE.fullmatch(handle.readline().rstrip("\n"))


def marks(path: Path, codes: set[str]) -> list[tuple[int, str]]:
    return [mark for mark in expected_marks(path.read_text(encoding="utf-8")) if mark[1] in codes]


def findings(path: Path) -> list:
    from autograd_lint.analysis import analyze

    return analyze(path.read_text(encoding="utf-8"), str(path))


def reported(path: Path) -> list[tuple[int, str]]:
    return sorted((f.span.start.line, f.code) for f in findings(path) if f.code in STATIC_CODES)


def test_every_rule_is_compared():
    from autograd_lint.rules import RULE_MODULES

    assert set(RULE_MODULES) == STATIC_CODES


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
def runtime_outcomes(torch_python) -> dict[str, dict]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "outcomes.json"
        command = [torch_python, __file__, str(report), *map(str, RUNNABLE_FILES)]
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
    errors = marks(path, ERROR_CODES)
    raises = runnable_header(path)["raises"]
    if raises:
        assert raises in outcome["message"], outcome
    message = outcome["message"] or ""
    if GRAPH_FREED in message:
        assert outcome["error"] == "RuntimeError", outcome
        # Only the first failing backward ever raises: one mark, on the raising line.
        assert len(errors) == 1 and errors[0][1] in RUNTIME_CODES, (errors, outcome)
        assert errors[0][0] == outcome["line"], (errors, outcome)
    elif MODIFIED in message:
        assert outcome["error"] == "RuntimeError", outcome
        assert [code for _, code in errors] == ["AG007"], (errors, outcome)
        # AG007 sits on the in-place change; its evidence names the backward that raises.
        (finding,) = [f for f in findings(path) if f.code == "AG007"]
        fails = [step.span.start.line for step in finding.evidence if step.role.value == "fails"]
        assert fails == [outcome["line"]], (fails, outcome)
    else:
        assert outcome["error"] is None, outcome
        assert errors == [], "a file that runs cleanly carries no error mark"


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

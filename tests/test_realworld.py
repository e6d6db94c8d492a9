"""The real-world yardstick (tests/realworld/): its manifest, its labels under torch, and
the analyzer's score on it.

The labels are checked by running every case's completion with torch (one interpreter,
a fork per case: `tests/realworld/run_cases.py`): a crash must raise its error at its
marked line, a correct program must run to the end. The analyzer's result is compared
with the labels and *reported* — recall and false alarms, every miss by mechanism — and
the test fails only when the score falls below the floor recorded in
`tests/realworld/baseline.json` (raise the floor when the analysis gets better).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "realworld"))

import yardstick  # noqa: E402

CASES = yardstick.load_manifest()
IDS = [case.id for case in CASES]
RUNNER = yardstick.ROOT / "run_cases.py"
MIN_CASES, MIN_CRASHES, MIN_SOURCES = 60, 40, 40
RUN_TIMEOUT_S = 1500


def header_source(path: Path) -> str | None:
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# Source:"):
            return line.removeprefix("# Source:").strip()
    return None


# -- the manifest ----------------------------------------------------------------------


def test_the_yardstick_is_big_and_varied_enough() -> None:
    crashes = [case for case in CASES if case.kind == "crash"]
    assert len(CASES) >= MIN_CASES
    assert len(crashes) >= MIN_CRASHES
    assert len({case.source for case in CASES}) >= MIN_SOURCES
    assert len({case.mechanism for case in crashes}) >= 10
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_files_cite_their_source_and_mark_their_line(case: yardstick.Case) -> None:
    assert case.path.stem == case.id and case.runnable_path.stem == case.id
    assert header_source(case.path) == case.source
    assert header_source(case.runnable_path) == case.source
    from run_cases import FAILS_MARK, marked_lines

    assert len(marked_lines(case.runnable_path)) == (1 if case.kind == "crash" else 0)
    # The analysed file says nothing about where it fails: the analyzer reads it blind.
    assert not any(map(FAILS_MARK.search, case.path.read_text(encoding="utf-8").splitlines()))
    if case.kind == "crash":
        lines = case.path.read_text(encoding="utf-8").splitlines()
        assert case.line <= len(lines)
        failing = lines[case.line - 1].strip()
        assert failing and not failing.startswith("#")


# -- the labels, from torch ------------------------------------------------------------


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("realworld") / "outcomes.json"
    files = [str(case.runnable_path) for case in CASES]
    subprocess.run(
        [sys.executable, str(RUNNER), "--json", str(out), *files],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_label_holds_under_torch(case: yardstick.Case, outcomes: dict) -> None:
    result = outcomes[str(case.runnable_path)]
    assert result["ok"], result["why"] + "\n" + result.get("output_tail", "")[-800:]
    if case.kind == "crash":
        from run_cases import error_kind

        assert error_kind(result["message"]) == case.error
    else:
        assert result["outcome"] == "clean"


# -- the analyzer's score --------------------------------------------------------------


def test_the_analysis_never_raises_on_real_code() -> None:
    for case in CASES:
        assert yardstick.judge(case).error is None, case.id


def test_score_does_not_fall_below_the_recorded_floor(capsys) -> None:
    result = yardstick.score(CASES)
    floor = yardstick.baseline()
    summary = result.summary()
    with capsys.disabled():
        print(
            f"\nreal-world yardstick: recall {summary['found']}/{summary['crashes']}, "
            f"false alarms {summary['false_alarms']}/{summary['correct']}"
        )
        for verdict in result.missed:
            print(f"  known gap: {verdict.case.id} ({verdict.case.mechanism})")
        for verdict in result.false_alarms:
            print(f"  false alarm: {verdict.case.id} {verdict.alarms}")
    assert summary["found"] >= floor["found_at_least"]
    assert summary["false_alarms"] <= floor["false_alarms_at_most"]

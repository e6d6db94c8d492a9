"""(b) Every fixed program runs with torch on the CPU: it no longer raises, and its
optimizers still change its parameters between the first and the last step.

All programs go through `fix_runner.py` in two processes (torch is imported once in
each; every program runs in a forked child). The runner is checked on a program it
must fail (the bug itself) and one whose parameters cannot move (lr=0).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fix_cases import ROOT, rewrite_cases

CASES = rewrite_cases()
RUNNER = Path(__file__).with_name("fix_runner.py")
FROZEN = """\
import torch
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
for _ in range(3):
    optimizer.zero_grad()
    model(torch.randn(4, 3)).pow(2).mean().backward()
    optimizer.step()
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, dict]:
    directory = tmp_path_factory.mktemp("fixed_programs")
    programs: dict[str, Path] = {}
    for number, case in enumerate(CASES):
        path = directory / f"case_{number}.py"
        path.write_text(case.fixed)
        programs[case.id] = path
    programs["buggy"] = directory / "buggy.py"
    programs["buggy"].write_text((ROOT / "samples" / "ag001_rnn_hidden_buggy.py").read_text())
    programs["frozen"] = directory / "frozen.py"
    programs["frozen"].write_text(FROZEN)

    paths = [str(p) for p in programs.values()]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    workers = [
        subprocess.Popen(
            [sys.executable, str(RUNNER), *share],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        for share in (paths[0::2], paths[1::2])
    ]
    by_path = {}
    for worker in workers:
        out, _ = worker.communicate(timeout=3000)
        for line in out.splitlines():
            report = json.loads(line)
            by_path[report["program"]] = report
    return {key: by_path.get(str(path), {"error": "not run"}) for key, path in programs.items()}


def test_runner_reports_the_unfixed_bug(reports):
    assert "backward through the graph a second time" in reports["buggy"]["error"]


def test_runner_reports_parameters_that_did_not_move(reports):
    assert reports["frozen"] == {
        "program": reports["frozen"]["program"],
        "error": None,
        "steps": 3,
        "changed": False,
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixed_program_runs_and_still_trains(case, reports):
    report = reports[case.id]
    assert report["error"] is None, report
    if "optim" in case.fixed:
        assert report["steps"] >= 2 and report["changed"] is True, report
    else:
        # No optimizer (a hand-written update): nothing to compare, it must just run.
        assert report["steps"] == 0, report

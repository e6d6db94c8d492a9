"""(b) Every fixed program (with the findings the fix leaves fixed too, see
`Case.completed`) runs with torch on the CPU: it no longer raises, and every
optimizer it builds still changes the parameters it owns between its first and its
last step (a GAN fix that froze the generator fails, even though the discriminator
learns).

All programs go through `fix_runner.py` in two runs of the warm interpreter (tests/conftest.py:
torch imported once for the session; every program runs in a forked child). The runner is checked on a program it
must fail (the bug itself), one whose parameters cannot move (lr=0), and one with two
optimizers of which only one moves its parameters.
"""

from __future__ import annotations

import json
import os
import subprocess
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
HALF_FROZEN = """\
import torch
gen, disc = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.0)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
for _ in range(3):
    for opt in (opt_g, opt_d):
        opt.zero_grad()
    disc(gen(torch.randn(4, 2))).pow(2).mean().backward()
    opt_d.step()
    opt_g.step()
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory, torch_python) -> dict[str, dict]:
    directory = tmp_path_factory.mktemp("fixed_programs")
    programs: dict[str, Path] = {}
    for number, case in enumerate(CASES):
        path = directory / f"case_{number}.py"
        path.write_text(case.completed)
        programs[case.id] = path
    programs["buggy"] = directory / "buggy.py"
    programs["buggy"].write_text((ROOT / "samples" / "ag001_rnn_hidden_buggy.py").read_text())
    programs["frozen"] = directory / "frozen.py"
    programs["frozen"].write_text(FROZEN)
    programs["half_frozen"] = directory / "half_frozen.py"
    programs["half_frozen"].write_text(HALF_FROZEN)

    paths = [str(p) for p in programs.values()]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    workers = [
        subprocess.Popen(
            [torch_python, str(RUNNER), *share],
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
    assert reports["frozen"]["error"] is None
    assert reports["frozen"]["optimizers"] == [{"class": "SGD", "steps": 3, "changed": False}]


def test_runner_reports_each_optimizer_on_its_own(reports):
    assert reports["half_frozen"]["optimizers"] == [
        {"class": "SGD", "steps": 3, "changed": False},
        {"class": "SGD", "steps": 3, "changed": True},
    ]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixed_program_runs_and_still_trains(case, reports):
    report = reports[case.id]
    assert report["error"] is None, report
    # Every optimizer the program builds steps more than once and moves what it owns; a
    # program with a hand-written update builds none, and only has to run.
    for optimizer in report["optimizers"]:
        assert optimizer["steps"] >= 2 and optimizer["changed"] is True, report

"""The same input gives the same output in every process, whatever the hash seed.

String hashes change with PYTHONHASHSEED, and with them the iteration order of every set
of names or origins. An analysis whose choice between two explanations follows that order
prints one story in one run and another in the next (and a `--jobs` run disagrees with a
serial one). Each case runs in fresh processes under several seeds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A backward at module level and one in a function meet on `hidden`: the function reads
# the module's `hidden` in its first iteration, whose graph the module's backward freed.
# Two origins, one from each interpreter, both the first its interpreter made.
MODULE_AND_FUNCTION_MEET = """import torch


if ready:
        out, hidden = model(x, hidden)
        loss = (out - y).pow(2).mean()
        loss.backward()


def step_all(model, batches):
    for x, y in batches:
        out, hidden = model(x, hidden)
        loss = (out - y).pow(2).mean()
        loss.backward()
"""


def check_json(paths: list[str], seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    run_cli = "import sys; from autograd_lint.cli import main; sys.exit(main(sys.argv[1:]))"
    command = [sys.executable, "-c", run_cli, "check", "--format", "json", "--no-cache"]
    done = subprocess.run(
        [*command, *paths], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_origins_of_two_interpreters_do_not_tie(tmp_path):
    path = tmp_path / "meet.py"
    path.write_text(MODULE_AND_FUNCTION_MEET)
    outputs = {check_json([str(path)], seed) for seed in range(8)}
    assert len(outputs) == 1, outputs
    assert '"AG001"' in outputs.pop()


def test_samples_and_corpus_print_the_same_under_two_seeds():
    paths = ["samples", "tests/corpus"]
    assert check_json(paths, 1) == check_json(paths, 2)

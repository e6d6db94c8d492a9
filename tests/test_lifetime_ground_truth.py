"""AG003 and AG004 held to what torch does: graphs that outlive their step.

Each sample runs under `support/lifetime_probe.py`, which records, at every backward,
the autograd nodes reachable from the accumulator and whether the step's saved tensors
survived the backward.
"""

import json
import subprocess
from pathlib import Path

import pytest
from autograd_lint.analysis import analyze

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "support" / "lifetime_probe.py"


def probe(python: str, sample: str, accumulator: str) -> list[dict]:
    path = ROOT / "samples" / sample
    proc = subprocess.run(
        [python, str(PROBE), str(path), accumulator],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=path.parent,
        env={"CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line[6:]) for line in proc.stdout.splitlines() if line.startswith("PROBE ")]


def findings(sample: str, code: str):
    source = (ROOT / "samples" / sample).read_text()
    return [f for f in analyze(source, sample) if f.code == code]


@pytest.mark.parametrize("stem", ["ag003_running_loss", "ag003_collected_logits"])
def test_accumulated_graph_grows_in_the_buggy_sample_and_not_in_the_fixed(stem, torch_python):
    (finding,) = findings(f"{stem}_buggy.py", "AG003")
    name = finding.extra["carried"][0]
    buggy = [r["accumulated_nodes"] for r in probe(torch_python, f"{stem}_buggy.py", name)]
    fixed = [r["accumulated_nodes"] for r in probe(torch_python, f"{stem}_fixed.py", name)]
    assert len(buggy) >= 10 and len(fixed) == len(buggy)
    assert all(later > earlier for earlier, later in zip(buggy[1:], buggy[2:])), buggy
    assert len(set(fixed)) == 1, fixed
    assert findings(f"{stem}_fixed.py", "AG003") == []


def test_retained_graph_outlives_its_step_only_in_the_buggy_sample(torch_python):
    assert findings("ag004_retain_every_step_buggy.py", "AG004")
    buggy = probe(torch_python, "ag004_retain_every_step_buggy.py", "-")
    fixed = probe(torch_python, "ag004_retain_every_step_fixed.py", "-")
    assert buggy and all(r["retained"] for r in buggy)
    assert fixed and not any(r["retained"] for r in fixed)
    assert findings("ag004_retain_every_step_fixed.py", "AG004") == []

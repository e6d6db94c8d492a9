"""Every shared sample confirmed by its runtime verdict: buggy ones where marked, others not.

The samples' marks are the ground truth (tests/test_samples_runtime.py checks them against
plain runs); here the harness must reach the same answer, stopping before the failure.
The runs go through one warm interpreter (warm_python.py: torch imported once, each run
forked); test_warm_runs_match_fresh_ones keeps that equal to a fresh interpreter's run.
"""

from __future__ import annotations

from multiprocessing.pool import ThreadPool
from pathlib import Path
from types import SimpleNamespace

import pytest
from autograd_lint.runtime.growth import growth
from autograd_lint.runtime.matching import GROWTH_CODES
from autograd_lint.runtime.runner import RuntimeVerdict, confirm
from runtime_support import SAMPLES, findings_for, options

SAMPLE_FILES = sorted(SAMPLES.glob("*.py"))
RUNTIME_CODES = ("AG001", "AG002", "AG007")  # the findings the harness can confirm


def run(
    sample: Path, python: str | None = None
) -> tuple[list, RuntimeVerdict, RuntimeVerdict | None]:
    """The findings, the verdict, and for a buggy sample the verdict when torch really raised."""
    findings = findings_for(sample)
    verdict = confirm(sample, findings, options("cpu", python=python))[0]
    real = None
    if any(f.code in RUNTIME_CODES for f in findings):
        # Only a sample with a crash to compare is run a second time: the warnings-only
        # ones never read `real`.
        real = confirm(sample, findings, options("cpu", intercept=False, python=python))[0]
    return findings, verdict, real


@pytest.fixture(scope="module")
def warm(torch_python):
    # The session's warm interpreter (tests/conftest.py), shared with the other runtime tests.
    return SimpleNamespace(shim=torch_python)


@pytest.fixture(scope="module")
def verdicts(request, warm) -> dict[Path, tuple[list, RuntimeVerdict]]:
    # Run the selected samples up front, two at a time, each forked from the warm
    # interpreter (a fresh one spends nearly all of a run importing torch).
    selected = sorted(
        {
            item.callspec.params["sample"]
            for item in request.session.items
            if item.module.__name__ == __name__
            and hasattr(item, "callspec")
            and "sample" in item.callspec.params
        }
    )
    with ThreadPool(2) as pool:
        runs = pool.map(lambda sample: run(sample, str(warm.shim)), selected)
    return dict(zip(selected, runs, strict=True))


@pytest.mark.skipif(not SAMPLE_FILES, reason="the shared samples/ folder is empty")
@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=[path.name for path in SAMPLE_FILES])
def test_sample_verdict_matches_its_marks(sample: Path, verdicts) -> None:
    findings, verdict, real = verdicts[sample]
    runtime_findings = [f for f in findings if f.code in RUNTIME_CODES]
    growth_codes = {f.code for f in findings if f.code in GROWTH_CODES}
    if not runtime_findings and growth_codes:
        # The verdict of a growth finding is what the run measured: confirmed exactly when
        # a graph grew at every step. AG003 says each iteration's graph stays alive, so the
        # graph the script keeps grows; AG004's retain_graph on a graph dropped at the next
        # step keeps it one step longer, which is no growth.
        grew = growth(verdict.steps)
        assert (verdict.status == "confirmed") == (grew is not None), verdict.detail
        if "AG003" in growth_codes:
            assert grew.measure == "kept" and grew.nodes_per_step > 0, grew
        return
    if not runtime_findings:
        assert verdict.status == "not-reproduced", (verdict.detail, verdict.stderr)
        return
    (finding,) = runtime_findings
    assert verdict.status == "confirmed", (verdict.detail, verdict.stderr)
    assert verdict.intercepted is True
    assert verdict.node and verdict.node.endswith(tuple("0123456789"))
    # The broken node was built earlier in this script's run, at a line of this script.
    source_lines = sample.read_text().splitlines()
    assert 1 <= verdict.built_line <= len(source_lines)
    assert source_lines[verdict.built_line - 1].strip()
    # Torch, left to run the backward, fails at the same call on the same node.
    assert real.status == "confirmed" and real.intercepted is False, real.detail
    same = ("line", "iteration", "node", "built_line", "built_iteration", "backward_calls")
    assert {k: getattr(real, k) for k in same} == {k: getattr(verdict, k) for k in same}
    if finding.code == "AG007":
        # Marked on the in-place change; the backward that trips over it follows in the loop.
        assert verdict.problem == "inplace"
        assert "modified by an inplace operation" in real.exception
        assert finding.loop.start.line <= verdict.line <= finding.loop.end.line
        assert verdict.built_iteration == verdict.iteration
        return
    assert verdict.problem == "freed"
    assert "backward through the graph a second time" in real.exception
    assert verdict.line == finding.span.start.line
    if finding.code == "AG001":
        # Carried over from an earlier iteration, or from before the loop.
        assert verdict.iteration >= 2
        assert verdict.built_iteration < verdict.iteration
    else:
        # A graph freed by an earlier backward of the same iteration.
        assert verdict.built_iteration == verdict.iteration


# A crash confirmed before it happens, and a clean run with output.
FIDELITY = [SAMPLES / "ag001_rnn_hidden_buggy.py", SAMPLES / "clean_lbfgs_closure.py"]
SAME = ("status", "line", "iteration", "node", "built_line", "built_iteration", "problem",
        "intercepted", "backward_calls", "stdout", "exception")  # fmt: skip


@pytest.mark.parametrize("fidelity", FIDELITY, ids=[path.name for path in FIDELITY])
def test_warm_runs_match_fresh_ones(fidelity: Path, verdicts, warm) -> None:
    _, warm_run, warm_real = verdicts.get(fidelity) or run(fidelity, str(warm.shim))
    _, fresh_run, fresh_real = run(fidelity)  # a fresh interpreter, as users run it
    assert {k: getattr(warm_run, k) for k in SAME} == {k: getattr(fresh_run, k) for k in SAME}
    assert warm_run.status == ("confirmed" if "buggy" in fidelity.name else "not-reproduced")
    if fresh_real is not None:
        assert {k: getattr(warm_real, k) for k in SAME} == {k: getattr(fresh_real, k) for k in SAME}

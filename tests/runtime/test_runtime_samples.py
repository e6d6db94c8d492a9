"""Every shared sample confirmed by its runtime verdict: buggy ones where marked, others not.

The samples' marks are the ground truth (tests/test_samples_runtime.py checks them against
plain runs); here the harness must reach the same answer, stopping before the failure.
"""

from __future__ import annotations

from multiprocessing.pool import ThreadPool
from pathlib import Path

import pytest
from autograd_lint.runtime.runner import RuntimeVerdict, confirm
from runtime_support import SAMPLES, findings_for, options

SAMPLE_FILES = sorted(SAMPLES.glob("*.py"))


def run(sample: Path) -> tuple[list, RuntimeVerdict, RuntimeVerdict | None]:
    """The findings, the verdict, and for a buggy sample the verdict when torch really raised."""
    findings = findings_for(sample)
    verdict = confirm(sample, findings, options("cpu"))[0]
    real = None
    if findings:
        real = confirm(sample, findings, options("cpu", intercept=False))[0]
    return findings, verdict, real


@pytest.fixture(scope="module")
def verdicts(request) -> dict[Path, tuple[list, RuntimeVerdict]]:
    # Run the selected samples up front, two at a time: each run is mostly torch's import.
    selected = sorted(
        {
            item.callspec.params["sample"]
            for item in request.session.items
            if item.module.__name__ == __name__ and hasattr(item, "callspec")
        }
    )
    with ThreadPool(2) as pool:
        return dict(zip(selected, pool.map(run, selected), strict=True))


@pytest.mark.skipif(not SAMPLE_FILES, reason="the shared samples/ folder is empty")
@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=[path.name for path in SAMPLE_FILES])
def test_sample_verdict_matches_its_marks(sample: Path, verdicts) -> None:
    findings, verdict, real = verdicts[sample]
    runtime_findings = [f for f in findings if f.code in ("AG001", "AG002", "AG007")]
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

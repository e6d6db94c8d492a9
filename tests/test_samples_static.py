"""The static analysis must agree with the runtime ground truth on every sample.

test_samples_runtime.py proves each `# expect:` mark by running the sample with
torch; here `analyze` has to report exactly those (line, code) pairs: no finding
missing, none extra, on buggy, fixed and clean samples alike.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from autograd_lint.analysis import Role, analyze
from expectations import expected_marks

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"
SAMPLES = sorted(SAMPLES_DIR.glob("*.py"))
# The graph-lifetime errors must tell their story; the other rules' findings may be terse.
GRAPH_ERRORS = {"AG001", "AG002"}
BUGGY = [
    path
    for path in SAMPLES
    if path.name.endswith("_buggy.py") and path.name[:5].upper() in GRAPH_ERRORS
]
CHECKED_CODE = re.compile(r"AG(?!000)\d{3}")  # every rule but AG000


def checked_findings(path: Path):
    findings = analyze(path.read_text(), str(path))
    return [finding for finding in findings if CHECKED_CODE.fullmatch(finding.code)]


@pytest.mark.parametrize("sample", SAMPLES, ids=[path.name for path in SAMPLES])
def test_findings_are_exactly_the_marks(sample: Path) -> None:
    found = sorted((finding.span.start.line, finding.code) for finding in checked_findings(sample))
    assert found == expected_marks(sample.read_text())


@pytest.mark.parametrize("sample", BUGGY, ids=[path.name for path in BUGGY])
def test_findings_explain_where_the_graph_was_built_and_where_it_fails(sample: Path) -> None:
    findings = [f for f in checked_findings(sample) if f.code in GRAPH_ERRORS]
    assert findings, f"{sample.name}: no finding to explain"
    for finding in findings:
        built = finding.steps(Role.BUILT)
        fails = finding.steps(Role.FAILS)
        assert built, f"{finding.code} at line {finding.span.start.line} has no BUILT step"
        assert fails, f"{finding.code} at line {finding.span.start.line} has no FAILS step"
        # The failing backward is the one torch raises from: the finding's own line.
        assert finding.span.start.line in {step.span.start.line for step in fails}


def test_marks_are_read_from_comments_only() -> None:
    source = (
        "hidden = rnn(x, hidden)\n"
        "loss.backward()  # expect: AG001\n"
        'note = "# expect: AG002"\n'
        "total.backward()  # running sum  # expect: AG001, AG003\n"
    )
    assert expected_marks(source) == [(2, "AG001"), (4, "AG001"), (4, "AG003")]


def test_marks_survive_sources_that_do_not_tokenize() -> None:
    assert expected_marks("def f(:  # expect: AG000\n    pass\n") == [(1, "AG000")]
    assert expected_marks("x = 1  # expect: nothing\n") == []

"""`retain_graph=True` on a carried loop with an optimizer step: an AG007 error that a run
confirms, and whose fix (no retain_graph, the carried state detached) a run clears.

The program is the corpus case (`tests/corpus/retain_graph_carried_inplace_error.py`): the
loop the error message's own advice produces. The findings are the analysis's, not built
by hand, so this checks the whole path: analysis -> finding -> harness -> verdict.
"""

from __future__ import annotations

from pathlib import Path

from autograd_lint.analysis import Role, analyze
from autograd_lint.fixes import fix_all
from autograd_lint.runtime.runner import RuntimeOptions, confirm

PROGRAM = Path(__file__).resolve().parent / "corpus" / "retain_graph_carried_inplace_error.py"


def options(python: str) -> RuntimeOptions:
    # From the warm interpreter (tests/conftest.py): torch is imported once per session.
    return RuntimeOptions(python=python, device="cpu", timeout_seconds=180)


def test_carried_retain_with_a_step_is_an_error_a_run_confirms(torch_python):
    source = PROGRAM.read_text()
    (finding,) = analyze(source, str(PROGRAM))
    assert (finding.code, finding.kind, finding.severity.value) == (
        "AG007",
        "optimizer-step",
        "error",
    )
    assert "modified by an inplace operation" in finding.message
    (verdict,) = confirm(PROGRAM, [finding], options(torch_python))
    assert verdict.status == "confirmed", (verdict.detail, verdict.stderr)
    assert verdict.problem == "inplace"
    # The graph crosses iterations: built in one, reached by the next one's backward.
    assert verdict.iteration >= 2 and verdict.built_iteration < verdict.iteration
    (fails,) = finding.steps(Role.FAILS)
    assert verdict.line == fails.span.start.line


def test_the_fixed_loop_runs_clean_under_the_harness(tmp_path, torch_python):
    fixed, applied, remaining = fix_all(PROGRAM.read_text(), path=str(PROGRAM))
    assert [f.strategy for f in applied] == ["retain-to-detach"] and remaining == []
    assert "retain_graph=True)" not in fixed and "hidden = hidden.detach()" in fixed
    script = tmp_path / PROGRAM.name
    script.write_text(fixed)
    (verdict,) = confirm(script, [], options(torch_python))
    assert verdict.status == "not-reproduced", (verdict.detail, verdict.stderr)

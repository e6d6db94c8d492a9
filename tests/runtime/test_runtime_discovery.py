"""Runtime discovery: failures no static finding predicted become findings of their own.

The scripts in scripts/discovery/ hide their carrier from the analysis (a cache in a
closure standing in for a C extension's, a closure the optimizer calls several times, a
stateful layer of an installed library), hold two bugs, or grow a graph kept for
logging. Each is run plainly first (torch must raise at the line marked `# fails`),
then under the harness with no finding to aim at. Runs fork from one warm interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
from types import SimpleNamespace

import pytest
from autograd_lint.cli import main
from autograd_lint.runtime.discovery import runtime_findings
from autograd_lint.runtime.growth import growth
from autograd_lint.runtime.runner import RuntimeVerdict, confirm
from runtime_support import SCRIPTS, TIMEOUT_S, options, tagged_line

DISCOVERY = SCRIPTS / "discovery"
FREED = "Trying to backward through the graph a second time"


@pytest.fixture(scope="module")
def warm(torch_python):
    # The session's warm interpreter (tests/conftest.py), shared with the other runtime tests.
    return SimpleNamespace(shim=torch_python)


def discover(warm, name: str, **overrides) -> tuple[RuntimeVerdict, list]:
    script = DISCOVERY / name
    values = {"python": str(warm.shim), "discover": True, "max_steps": 10, **overrides}
    (run,) = confirm(script, [], options("cpu", **values))
    return run, runtime_findings(str(script), script.read_text(), run, [])


def plain_failure_line(warm, name: str, env: dict | None = None) -> int:
    """Runs the script as `python script.py` would; the script line torch raised at."""
    script = DISCOVERY / name
    result = subprocess.run(
        [str(warm.shim), str(script)],
        cwd=script.parent,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert FREED in result.stderr, result.stderr[-2000:]
    marker = f'File "{script}", line '
    lines = [text for text in result.stderr.splitlines() if marker in text]
    return int(lines[-1].split(marker)[1].split(",")[0])


@pytest.mark.parametrize(
    "name, code, iteration, built_and_freed_in",
    [
        ("opaque_cache_buggy.py", "AG001", 2, 1),
        ("library_layer_buggy.py", "AG001", 2, 1),
        # The closure's second call in the first epoch: iteration 1 of the script's loop.
        ("optimizer_closure_buggy.py", "AG002", 1, 1),
    ],
)
def test_a_carrier_the_analysis_cannot_see_is_found_at_runtime(
    warm, name, code, iteration, built_and_freed_in
):
    script = DISCOVERY / name
    fails = tagged_line(script, "fails")
    assert plain_failure_line(warm, name) == fails
    run, found = discover(warm, name)
    assert run.status == "confirmed", run
    ((finding, verdict),) = found
    assert (finding.code, finding.span.start.line) == (code, fails)
    assert finding.extra["source"] == "runtime" and "(found at runtime)" in finding.message
    assert verdict.iteration == iteration
    # The stale node was built at the tagged line (inside a library or a cache: the
    # script's line that called it), and freed by the first run of the failing backward.
    built = tagged_line(script, "built")
    assert (verdict.built_line, verdict.built_iteration) == (built, built_and_freed_in)
    assert (verdict.freed_line, verdict.freed_iteration) == (fails, built_and_freed_in)
    assert [(step.role.value, step.span.start.line) for step in finding.evidence] == [
        ("built", built),
        ("freed", fails),
        *([("call", tagged_line(script, "steps"))] if "closure" in name else []),
        ("fails", fails),
    ]


def test_a_closure_the_optimizer_calls_reports_the_call_site_and_the_same_step(warm):
    script = DISCOVERY / "optimizer_closure_buggy.py"
    run, ((finding, _),) = discover(warm, "optimizer_closure_buggy.py")
    fails, steps = tagged_line(script, "fails"), tagged_line(script, "steps")
    # The second call of the closure within one optimizer.step(): freed by the first.
    assert run.same_step is True and run.freed_line == fails
    assert [frame["line"] for frame in run.frames] == [fails, steps]
    assert run.frames[0]["function"] == "closure"
    calls = [step for step in finding.evidence if step.role.value == "call"]
    assert [step.span.start.line for step in calls] == [steps]


def test_a_file_with_two_bugs_shows_both_and_says_the_second_follows_a_skip(warm):
    script = DISCOVERY / "two_bugs_buggy.py"
    first, second = tagged_line(script, "first bug"), tagged_line(script, "second bug")
    assert plain_failure_line(warm, script.name) == first
    assert plain_failure_line(warm, script.name, {"SECOND_ONLY": "1"}) == second
    run, found = discover(warm, script.name)
    findings = [finding for finding, _ in found]
    assert [(f.code, f.span.start.line) for f in findings] == [
        ("AG002", first),
        ("AG001", second),
    ]
    assert [f["after_skip"] for f in run.failures] == [False, True]
    assert "after an earlier failing backward was skipped" in findings[1].message
    assert run.failures[0]["freed_line"] == tagged_line(script, "frees first")
    assert run.failures[1]["built_line"] == tagged_line(script, "built second")
    assert (run.failures[1]["iteration"], run.failures[1]["built_iteration"]) == (2, 1)


def test_a_graph_kept_for_logging_grows_by_the_hand_count(warm):
    run, found = discover(warm, "logged_graph_growing.py", max_steps=5)
    assert run.status == "not-reproduced" and not found
    grew = growth(run.steps)
    # The graph each backward walks stays the same; the one `history` keeps grows by
    # MulBackward0 + SumBackward0 and the 8 float32 values MulBackward0 saved.
    assert {step["nodes"] for step in run.steps} == {3}
    assert (grew.measure, grew.nodes_per_step, grew.bytes_per_step) == ("kept", 2, 32)
    assert grew.message() == (
        "the graph the script keeps alive grows by 2 nodes and 32 bytes of saved tensors "
        "per step; after 1,000 steps: 2,001 nodes, 32.0 kB"
    )


def test_confirm_always_reports_runtime_findings_in_json(warm, capsys, monkeypatch):
    monkeypatch.chdir(DISCOVERY)
    argv = ["check", "opaque_cache_buggy.py", "logged_graph_growing.py", "--format", "json"]
    argv += ["--confirm-python", str(warm.shim), "--confirm-device", "cpu"]
    assert main([*argv, "--confirm=always"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    by_code = {f["code"]: f for f in findings}
    found = by_code["AG001"]
    assert found["source"] == "runtime" and found["path"] == "opaque_cache_buggy.py"
    assert found["runtime"]["status"] == "confirmed" and found["runtime"]["iteration"] == 2
    # The static AG003 gets its verdict from the growth the run measured.
    grows = by_code["AG003"]
    assert "source" not in grows and grows["runtime"]["status"] == "confirmed"
    assert grows["runtime"]["growth"]["nodesPerStep"] == 2
    # Plain --confirm runs only files with findings: the cache script has none.
    assert main([*argv, "--confirm"]) == 1
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes == ["AG003"]
    # What a run found obeys the file's settings like any finding.
    assert main([*argv, "--confirm=always", "--ignore", "AG001", "--exit-zero"]) == 0
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes == ["AG003"]

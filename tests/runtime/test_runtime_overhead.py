"""What the harness costs the script, and the measuring mode the benchmark uses.

Imports run untraced (CPython 3.11 runs every line of Python on its slow path while a trace
function is set, and a library's import is most of a script's start-up), yet the nodes an
import builds still belong to the importing line, and the script's own lines are traced
again after it. `--bare-stop N` runs the script with nothing but a call counter, to measure
what the program costs on its own up to its Nth backward call.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from autograd_lint.runtime.runner import HARNESS, confirm
from runtime_support import SCRIPTS, TIMEOUT_S, options
from warm_python import WarmPython

FREED = "Trying to backward through the graph a second time"


def load_tracer():
    path = HARNESS.with_name("_tracer.py")
    spec = importlib.util.spec_from_file_location("autograd_lint_test_tracer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counted_nodes() -> int:
    """Stands in for autograd's sequence counter: the scripts below bump it ("build nodes")."""
    return sys.modules["node_counter"].value


def test_an_import_runs_untraced_and_its_nodes_stay_the_importing_lines(tmp_path, monkeypatch):
    (tmp_path / "node_counter.py").write_text("value = 0\n")
    (tmp_path / "heavy_library.py").write_text(
        textwrap.dedent(
            """
            import sys
            import node_counter
            TRACE_DURING_IMPORT = sys.gettrace()
            node_counter.value += 5  # five nodes built while the module loads
            """
        )
    )
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            """\
            import node_counter
            import heavy_library
            node_counter.value += 1
            for step in range(2):
                node_counter.value += 1
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("node_counter", "heavy_library"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import node_counter  # noqa: F401 - the counter must exist before the script runs

    original_import = builtins.__import__
    tracer = load_tracer().ScriptTracer(str(script), [(4, 5)], counted_nodes)
    tracer.start()
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        tracer.stop()
    assert builtins.__import__ is original_import
    assert sys.gettrace() is None
    assert sys.modules["heavy_library"].TRACE_DURING_IMPORT is None
    # Nodes 0-4 came from the import on line 2, node 5 from line 3; the loop's body (line
    # 5) is traced after the import: nodes 6 and 7, one per pass.
    assert [tracer.line_of(seq) for seq in range(8)] == [2, 2, 2, 2, 2, 3, 5, 5]
    assert tracer.iteration_at(4, 6) == 1
    assert tracer.iteration_at(4, 7) == 2


def test_an_import_under_another_tracer_is_left_to_it(tmp_path):
    """A script that sets its own trace function (a debugger, coverage) keeps it."""
    original_import = builtins.__import__
    tracer = load_tracer().ScriptTracer(str(tmp_path / "script.py"), [], lambda: 0)

    def theirs(frame, event, arg):
        return None

    tracer.start()
    try:
        sys.settrace(theirs)
        import json as again  # noqa: F401 - already loaded: our import wrapper still runs

        assert sys.gettrace() is theirs
    finally:
        tracer.stop()
    assert builtins.__import__ is original_import


@pytest.fixture(scope="module")
def warm():
    with WarmPython() as interpreter:
        yield interpreter


def harness_events(warm, script: Path, *arguments: str) -> list[dict]:
    result_file = script.parent / f".result-{script.stem}.jsonl"
    result_file.unlink(missing_ok=True)
    try:
        subprocess.run(
            [str(warm.shim), str(HARNESS), "--script", str(script), "--device", "cpu"]
            + ["--result-file", str(result_file), *arguments],
            cwd=script.parent,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        return [json.loads(line) for line in result_file.read_text().splitlines()]
    finally:
        result_file.unlink(missing_ok=True)


def test_a_bare_run_stops_before_the_nth_backward_call_and_measures_nothing(warm, tmp_path):
    script = tmp_path / "carried.py"
    script.write_text((SCRIPTS / "rnn_carried_buggy.py").read_text())
    events = harness_events(warm, script, "--bare-stop", "2")
    kinds = [event["event"] for event in events]
    assert kinds == ["start", "bare-stop", "verdict"]
    stop, verdict = events[1], events[2]
    assert stop["call"] == 2 and stop["cpu_seconds"] > 0
    # Stopped before the failing call ran, so torch never raised; nothing was walked.
    assert verdict["status"] == "not-reproduced"
    assert verdict["steps"] == [] and verdict["graph_nodes"] == []
    assert FREED not in json.dumps(events)


def test_the_failure_event_says_which_call_failed_and_what_walking_graphs_cost(warm):
    events = []
    script = SCRIPTS / "rnn_carried_buggy.py"
    confirm(
        script, [], options("cpu", python=str(warm.shim), discover=True), on_event=events.append
    )
    (failure,) = [event for event in events if event["event"] == "failure"]
    assert failure["call"] == 2  # the second backward reaches the first step's graph
    assert 0 <= failure["graph_seconds"] < failure["cpu_seconds"]

"""Fixture scripts confirmed (or not) by running them under the harness.

The verdict tests run the harness from the warm interpreter (`torch_python`, torch imported
once; test_warm_python.py holds it to a fresh one); the tests about how a run starts (a
plain run beside it, `-m`, argv and cwd) start a fresh interpreter, as users' runs do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from autograd_lint.runtime.growth import growth
from autograd_lint.runtime.harness import __file__ as HARNESS_PATH
from autograd_lint.runtime.runner import confirm, format_verdict
from runtime_support import SCRIPTS, TIMEOUT_S, findings_for, options, tagged_line

# script, failing iteration, iteration the broken node was built in (0: before the loop), node
BUGGY = [
    ("rnn_carried_buggy.py", 2, 1, "TanhBackward0"),
    ("hoisted_forward_buggy.py", 2, 0, "ReluBackward0"),
    ("shared_graph_buggy.py", 1, 1, "SigmoidBackward0"),
    ("gan_buggy.py", 1, 1, "TanhBackward0"),
    ("checkpointed_carried_buggy.py", 2, 1, "TanhBackward0"),
]
FIXED = ["rnn_carried_fixed.py", "gan_fixed.py"]


@pytest.mark.device
@pytest.mark.parametrize(("name", "iteration", "built_iteration", "node"), BUGGY)
def test_buggy_script_is_confirmed_where_it_fails(
    name, iteration, built_iteration, node, test_device, harness_python
):
    script = SCRIPTS / name
    (finding,) = findings_for(script)
    (verdict,) = confirm(script, [finding], options(test_device, python=harness_python))
    assert verdict.status == "confirmed", verdict
    assert verdict.problem == "freed"
    assert verdict.intercepted is True
    assert verdict.line == finding.span.start.line
    assert verdict.iteration == iteration
    assert verdict.node == node
    assert verdict.built_line == tagged_line(script, "built")
    assert verdict.built_iteration == built_iteration
    assert verdict.device == test_device
    assert verdict.peak_memory_bytes > 0
    text = format_verdict(verdict)
    assert text.startswith(f"confirmed at runtime: iteration {iteration} on {test_device} (")
    assert f"{node} built at line {verdict.built_line}" in text


@pytest.mark.device
def test_in_place_change_of_a_saved_tensor_is_confirmed(test_device, harness_python):
    script = SCRIPTS / "inplace_buggy.py"
    (finding,) = findings_for(script)
    (verdict,) = confirm(script, [finding], options(test_device, python=harness_python))
    assert verdict.status == "confirmed", verdict
    assert verdict.problem == "inplace"
    assert (verdict.line, verdict.iteration) == (finding.span.start.line, 1)
    assert (verdict.node, verdict.built_line) == ("MulBackward0", tagged_line(script, "built"))
    assert "modified in place" in format_verdict(verdict)


@pytest.mark.device
@pytest.mark.parametrize("name", FIXED)
def test_fixed_script_is_not_reproduced(name, test_device, harness_python):
    script = SCRIPTS / name
    (verdict,) = confirm(script, [], options(test_device, max_steps=3, python=harness_python))
    assert verdict.status == "not-reproduced", verdict
    assert verdict.backward_calls == 3
    assert format_verdict(verdict) == "not reproduced in 3 steps"
    assert verdict.device == test_device
    # Stopped right after the third backward, before the rest of the script ran.
    assert "step 2" not in verdict.stdout


def test_a_graph_growing_every_step_is_reported(torch_python):
    script = SCRIPTS / "carried_retained.py"
    (verdict,) = confirm(script, [], options(max_steps=4, python=torch_python))
    assert verdict.status == "not-reproduced"
    sizes = verdict.graph_nodes
    assert len(sizes) == 4 and all(a < b for a, b in zip(sizes, sizes[1:], strict=False))
    # By hand: each step adds MmBackward0, AddBackward0 and TanhBackward0 to the chain, and
    # one new saved storage, tanh's 1x4 float32 result (16 bytes; the next step's mm saves
    # the same tensor; the weights it also saves are the same storage every step).
    grew = growth(verdict.steps)
    assert (grew.nodes_per_step, grew.bytes_per_step) == (3, 16)
    assert [step["nodes"] for step in verdict.steps] == sizes
    assert format_verdict(verdict) == (
        "not reproduced in 4 steps; the graph each backward walks grows by 3 nodes and "
        "16 bytes of saved tensors per step; after 1,000 steps: 3,002 nodes, 16.1 kB"
    )


def read_hook_log(path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.device
def test_harness_stops_the_script_before_the_failing_backward_runs(tmp_path, test_device):
    # The script's hook writes a line as each backward starts. Plainly run, the failing
    # second backward starts (hook fires) and then raises; under the harness it never starts.
    script = SCRIPTS / "rnn_carried_buggy.py"
    plain_log = tmp_path / "plain.log"
    env = {**os.environ, "HOOK_LOG": str(plain_log), "FIXTURE_DEVICE": test_device}
    plain = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert "Trying to backward through the graph a second time" in plain.stderr
    assert read_hook_log(plain_log) == ["0", "1"]

    harness_log = tmp_path / "harness.log"
    (verdict,) = confirm(
        script, findings_for(script), options(test_device, env={"HOOK_LOG": str(harness_log)})
    )
    assert verdict.status == "confirmed" and verdict.intercepted
    assert read_hook_log(harness_log) == ["0"]
    assert "step 0" in verdict.stdout and "step 1" not in verdict.stdout


@pytest.mark.device
def test_without_interception_torch_raises_at_the_same_place(tmp_path, test_device):
    script = SCRIPTS / "rnn_carried_buggy.py"
    (finding,) = findings_for(script)
    result = tmp_path / "result.jsonl"
    log = tmp_path / "hook.log"
    env = {**os.environ, "HOOK_LOG": str(log), "FIXTURE_DEVICE": test_device}
    command = [sys.executable, HARNESS_PATH, "--script", str(script), "--device", test_device]
    command += ["--loop-lines", f"{finding.loop.start.line}:{finding.loop.end.line}"]
    command += ["--no-intercept", "--result-file", str(result)]
    subprocess.run(command, env=env, cwd=script.parent, capture_output=True, timeout=TIMEOUT_S)
    events = [json.loads(line) for line in result.read_text().splitlines()]
    # Each distinct failing backward is reported as it happens, before the verdict.
    assert [e["event"] for e in events] == ["start", "backward", "backward", "failure", "verdict"]
    verdict = events[-1]
    assert verdict["status"] == "confirmed" and verdict["intercepted"] is False
    assert "backward through the graph a second time" in verdict["exception"]
    assert (verdict["line"], verdict["iteration"]) == (finding.span.start.line, 2)
    assert (verdict["node"], verdict["built_iteration"]) == ("TanhBackward0", 1)
    assert read_hook_log(log) == ["0", "1"]  # the failing backward did start


def test_script_that_crashes_otherwise_is_an_error(torch_python):
    script = SCRIPTS / "crashes.py"
    (verdict,) = confirm(script, [], options(python=torch_python))
    assert verdict.status == "error"
    assert verdict.line == tagged_line(script, "crash")
    assert f"script failed at line {verdict.line}: KeyError: 'learning_rate'" in verdict.detail
    assert "KeyError" in format_verdict(verdict)


def test_missing_script_is_an_error(tmp_path):
    (verdict,) = confirm(tmp_path / "absent.py", [], options())
    assert verdict.status == "error"
    assert verdict.detail == f"script not found: {tmp_path / 'absent.py'}"


def test_script_without_a_loop_finishes_unconfirmed(torch_python):
    (verdict,) = confirm(SCRIPTS / "no_loop.py", [], options(python=torch_python))
    assert verdict.status == "not-reproduced"
    assert verdict.detail == "not reproduced: the script finished after 1 backward call"
    assert "gradient [2.0, 2.0, 2.0]" in verdict.stdout


def test_script_without_backward_says_so(torch_python):
    (verdict,) = confirm(SCRIPTS / "no_backward.py", [], options(python=torch_python))
    assert verdict.status == "not-reproduced"
    assert "without calling backward" in format_verdict(verdict)


def test_output_that_mimics_the_protocol_cannot_forge_a_verdict(torch_python):
    (verdict,) = confirm(SCRIPTS / "prints_protocol.py", [], options(python=torch_python))
    assert verdict.status == "not-reproduced"
    assert '"detail": "forged"' in verdict.stdout
    assert '"detail": "forged"' in verdict.stderr


def test_script_that_swallows_the_stop_still_gets_one_verdict(torch_python):
    script = SCRIPTS / "swallows_stop.py"
    events = []
    opts = options(python=torch_python)
    (verdict,) = confirm(script, findings_for(script), opts, on_event=events.append)
    assert verdict.status == "confirmed" and verdict.iteration == 2
    assert [e["event"] for e in events].count("verdict") == 1
    # Every later backward is refused too, so nothing runs through the freed graph.
    assert verdict.backward_calls == 2
    assert "swallowed" in verdict.stdout


def test_script_runs_like_python_script_py_in_its_folder():
    (verdict,) = confirm(SCRIPTS / "argv_and_cwd.py", [], options(args=["--epochs", "1"]))
    assert verdict.status == "not-reproduced", verdict.stderr
    assert "args ['--epochs', '1']" in verdict.stdout


def test_harness_runs_as_a_module_too(tmp_path):
    result = tmp_path / "result.jsonl"
    command = [sys.executable, "-m", "autograd_lint.runtime.harness", "--script"]
    command += [str(SCRIPTS / "no_loop.py"), "--device", "cpu", "--result-file", str(result)]
    done = subprocess.run(command, cwd=SCRIPTS, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(result.read_text().splitlines()[-1])
    assert verdict["status"] == "not-reproduced" and verdict["device"] == "cpu"

"""The runner: process lifetime, mapping onto findings, wording and command line options."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from autograd_lint.analysis.model import Finding, Role, Severity, Span, Step
from autograd_lint.runtime.cli_options import DISCOVERY_STEPS
from autograd_lint.runtime.matching import verdict_for
from autograd_lint.runtime.runner import (
    ConfirmationRun,
    RuntimeOptions,
    RuntimeVerdict,
    add_cli_arguments,
    child_environment,
    confirm,
    confirm_async,
    confirm_findings,
    format_verdict,
    harness_command,
    options_from_args,
    refusal,
)
from runtime_support import SCRIPTS, TIMEOUT_S, findings_for, options, process_gone

SPAWNS = SCRIPTS / "spawns_child.py"
SPAWN_TIMEOUTS_S = (6, 30)


def wait_for_pids(path: Path) -> list[int]:
    """The harness's and its child's pids, once the script has written them."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if text.endswith("\n"):
            return [int(pid) for pid in text.split()]
        time.sleep(0.1)
    raise AssertionError("the script never started its child")


def wait_gone(pids: list[int]) -> list[int]:
    """Pids still running after a short grace (killing is asynchronous)."""
    for _ in range(50):
        alive = [pid for pid in pids if not process_gone(pid)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def test_timeout_kills_the_whole_process_tree(tmp_path):
    pid_file = tmp_path / "pids"
    seen = []

    def cancel_after_timeout_only():
        # Never cancels; records the pids as soon as they exist, for the check below.
        if not seen and pid_file.exists() and pid_file.read_text().endswith("\n"):
            seen.extend(int(pid) for pid in pid_file.read_text().split())
        return False

    # Short, so the test does not wait out a long timeout; if torch's import in the harness
    # outlasted it on a busy machine (the child never started), once more with a long one.
    for timeout in SPAWN_TIMEOUTS_S:
        pid_file.unlink(missing_ok=True)
        opts = options(timeout_seconds=timeout, env={"CHILD_PID_FILE": str(pid_file)})
        (verdict,) = confirm(SPAWNS, [], opts, cancel_event=cancel_after_timeout_only)
        if seen:
            break
    assert verdict.status == "error"
    assert verdict.detail.startswith(f"timed out after {timeout:g} s")
    assert len(seen) == 2, "the script did not start its child before the timeout"
    assert wait_gone(seen) == []


def test_cancel_kills_the_whole_process_tree(tmp_path):
    pid_file = tmp_path / "pids"
    run = ConfirmationRun(SPAWNS, [], options(env={"CHILD_PID_FILE": str(pid_file)}))
    pids = wait_for_pids(pid_file)
    assert not run.done()
    run.cancel()
    (verdict,) = run.result(timeout=60)
    assert verdict.status == "error" and verdict.detail.startswith("cancelled")
    assert wait_gone(pids) == []


def test_cancelling_the_async_task_kills_the_process_tree(tmp_path):
    pid_file = tmp_path / "pids"

    async def scenario():
        task = asyncio.create_task(
            confirm_async(SPAWNS, [], options(env={"CHILD_PID_FILE": str(pid_file)}))
        )
        pids = await asyncio.to_thread(wait_for_pids, pid_file)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pids

    pids = asyncio.run(scenario())
    assert wait_gone(pids) == []


def test_a_cancel_event_works_from_another_thread(tmp_path):
    pid_file = tmp_path / "pids"
    cancel = threading.Event()
    timer = threading.Thread(target=lambda: (wait_for_pids(pid_file), cancel.set()))
    timer.start()
    (verdict,) = confirm(
        SPAWNS, [], options(env={"CHILD_PID_FILE": str(pid_file)}), cancel_event=cancel
    )
    timer.join()
    assert verdict.detail.startswith("cancelled")
    assert wait_gone([int(p) for p in pid_file.read_text().split()]) == []


def test_the_runner_never_imports_torch():
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from autograd_lint.runtime.runner import RuntimeOptions, confirm, format_verdict
        (verdict,) = confirm(Path({str(SCRIPTS / "no_loop.py")!r}), [], RuntimeOptions(device="cpu"))
        print(verdict.status, "torch" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert done.stdout.split() == ["not-reproduced", "False"], done.stderr


def test_an_interpreter_that_does_not_start_is_an_error(tmp_path):
    (verdict,) = confirm(SCRIPTS / "no_loop.py", [], options(python=str(tmp_path / "nope")))
    assert verdict.status == "error" and verdict.detail.startswith("cannot start")


def test_an_interpreter_without_torch_is_an_error(tmp_path):
    # `python -I -S`-like isolation: a wrapper that hides site-packages from the harness.
    wrapper = tmp_path / "python-without-torch"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    wrapper.chmod(0o755)
    (verdict,) = confirm(SCRIPTS / "no_loop.py", [], options(python=str(wrapper)))
    assert verdict.status == "error"
    assert verdict.detail.startswith("cannot import torch")


# -- mapping onto findings ------------------------------------------------------------------


def make_finding(line: int, code: str = "AG001", fails_at: int | None = None) -> Finding:
    evidence = ()
    if fails_at is not None:
        evidence = (Step(Span.of(fails_at, 0, fails_at, 1), "fails", Role.FAILS),)
    return Finding(
        code, Severity.ERROR, "m", Span.of(line, 4, line, 9), evidence, loop=Span.of(3, 0, 12, 0)
    )


def confirmed_at(line: int) -> RuntimeVerdict:
    return RuntimeVerdict(
        "confirmed", "cpu", 2, "d", line=line, node="TanhBackward0", built_line=5,
        built_iteration=1, intercepted=True, problem="freed",
    )  # fmt: skip


def test_a_finding_is_confirmed_only_by_a_failure_on_its_lines():
    assert verdict_for(make_finding(10), confirmed_at(10)).status == "confirmed"
    assert verdict_for(make_finding(8, fails_at=10), confirmed_at(10)).status == "confirmed"
    other = verdict_for(make_finding(8), confirmed_at(10))
    assert other.status == "not-reproduced"
    assert other.detail.startswith("not reached: the script stopped at line 10")


def test_an_in_place_finding_is_confirmed_by_an_in_place_failure_in_its_loop():
    in_place = confirmed_at(10)
    in_place.problem = "inplace"
    assert verdict_for(make_finding(6, code="AG007"), in_place).status == "confirmed"
    outside = confirmed_at(20)
    outside.problem = "inplace"
    assert verdict_for(make_finding(6, code="AG007"), outside).status == "not-reproduced"
    assert verdict_for(make_finding(6, code="AG007"), confirmed_at(10)).status == "not-reproduced"


def test_unconfirmed_runs_apply_to_every_finding():
    run = RuntimeVerdict("not-reproduced", "cpu", 5, "not reproduced in 5 steps")
    assert verdict_for(make_finding(10), run) == run
    assert verdict_for(make_finding(10), run) is not run


def test_harness_command_carries_lines_loops_and_arguments():
    opts = RuntimeOptions(python="py", args=["--lr", "1"], device="cpu", max_steps=3)
    findings = [make_finding(10), make_finding(11, fails_at=7)]
    command = harness_command(Path("/w/train.py"), findings, opts, ["--result-fd", "9"])
    assert command[0] == "py" and command[1].endswith("harness.py")
    joined = " ".join(command)
    assert "--script /w/train.py --lines 7,10,11 --loop-lines 3:12" in joined
    assert joined.endswith("--max-steps 3 --device cpu --result-fd 9 -- --lr 1")


def test_device_option_sets_cuda_visible_devices():
    assert child_environment(RuntimeOptions(device="cpu"))["CUDA_VISIBLE_DEVICES"] == ""
    assert child_environment(RuntimeOptions(device="cuda:3"))["CUDA_VISIBLE_DEVICES"] == "3"
    env = child_environment(RuntimeOptions(device="auto", env={"CUDA_VISIBLE_DEVICES": "1"}))
    assert env["CUDA_VISIBLE_DEVICES"] == "1"


# -- wording --------------------------------------------------------------------------------


def test_format_verdict_lines():
    assert format_verdict(confirmed_at(10)) == (
        "confirmed at runtime: iteration 2 on cpu "
        "(stale node TanhBackward0 built at line 5 in iteration 1)"
    )
    hoisted = confirmed_at(10)
    hoisted.built_iteration = 0
    assert format_verdict(hoisted).endswith("built at line 5 before the loop)")
    shared = confirmed_at(10)
    shared.iteration = shared.built_iteration = 1
    assert "in the same iteration, freed by an earlier backward" in format_verdict(shared)
    raised = confirmed_at(10)
    raised.intercepted, raised.exception = False, "Trying to backward twice\nmore"
    assert format_verdict(raised).endswith("iteration 1): Trying to backward twice")
    not_reproduced = RuntimeVerdict("not-reproduced", backward_calls=5, detail="x")
    assert format_verdict(not_reproduced) == "not reproduced in 5 steps"
    error = RuntimeVerdict("error", detail="timed out after 2 s")
    assert format_verdict(error) == "runtime check failed: timed out after 2 s"


def test_to_json_has_the_protocol_keys_and_extras():
    data = confirmed_at(10).to_json()
    assert list(data)[:4] == ["status", "device", "iteration", "detail"]
    assert data["node"] == "TanhBackward0" and data["builtLine"] == 5
    assert "stdout" not in data
    assert RuntimeVerdict("error", detail="x").to_json() == {
        "status": "error", "device": None, "iteration": None, "detail": "x", "backwardCalls": 0,
    }  # fmt: skip


def test_refusal_rules():
    assert "untrusted" in refusal(enabled=True, workspace_trusted=False)
    assert "runtime.enabled" in refusal(enabled=False, workspace_trusted=True)
    assert refusal(enabled=True, workspace_trusted=True) is None


# -- command line ---------------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_cli_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_options_become_runtime_options():
    args = parse("--confirm", "--confirm-args", "--epochs 1 --name 'a b'", "--confirm-device",
                 "cuda:1", "--confirm-timeout", "9", "--confirm-python", "/env/python")  # fmt: skip
    opts = options_from_args(args)
    assert opts == RuntimeOptions(
        python="/env/python", args=["--epochs", "1", "--name", "a b"], device="cuda:1",
        max_steps=5, timeout_seconds=9.0, discover=True,
    )  # fmt: skip
    # Without a finding to aim at, a run watches more backward calls unless told otherwise.
    assert options_from_args(parse("--confirm=always")).max_steps == DISCOVERY_STEPS
    assert options_from_args(parse("--confirm=always", "--confirm-max-steps", "3")).max_steps == 3
    with_paths = argparse.ArgumentParser()
    with_paths.add_argument("paths", nargs="*")
    add_cli_arguments(with_paths)
    args = with_paths.parse_args(["--confirm=always", "train.py", "b.py"])
    assert (args.confirm, args.paths) == ("always", ["train.py", "b.py"])
    assert with_paths.parse_args(["--confirm", "train.py"]).paths == ["train.py"]
    with pytest.raises(ValueError, match="cuda:N"):
        options_from_args(parse("--confirm-device", "gpu"))


def test_confirm_findings_needs_the_flag_and_skips_other_rules():
    script = SCRIPTS / "rnn_carried_buggy.py"
    (finding,) = findings_for(script)
    not_run = Finding("AG005", Severity.WARNING, "zero_grad", Span.of(5, 0, 5, 1))
    assert confirm_findings({script: [finding, not_run]}, parse()) == {}
    verdicts = confirm_findings(
        {script: [finding, not_run]}, parse("--confirm", "--confirm-device", "cpu")
    )
    assert list(verdicts) == [finding]
    assert verdicts[finding].status == "confirmed"

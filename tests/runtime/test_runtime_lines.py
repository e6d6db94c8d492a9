"""Line recording compiled into the script (runtime/_lines.py) instead of a trace function.

The script's own behaviour must not change (values, exceptions and their line numbers,
docstrings, `from __future__`, generators, lambdas), and the harness must see the same
thing as with `sys.settrace`: each failing backward at the same line and iteration, its
stale node built at the same line and iteration, freed by the same backward.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import textwrap
import traceback
from pathlib import Path

import pytest
from autograd_lint.runtime.runner import HARNESS, harness_command
from autograd_lint.runtime.verdict import RuntimeOptions
from runtime_support import SCRIPTS, TIMEOUT_S
from warm_python import WarmPython

REALWORLD = Path(__file__).resolve().parents[1] / "realworld" / "runnable"


def load(name: str):
    path = HARNESS.with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"autograd_lint_test_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAM = '''\
"""The module's docstring."""
from __future__ import annotations

import sys


class Box:
    """A box."""

    def __init__(self, value):
        self.value = value


def pairs(n):
    """Yields pairs."""
    for i in range(n):
        yield i, i * i


def fails(x):
    if x > 1:
        raise ValueError(f"too big: {x}")
    return x


def no_body():
    """Only a docstring."""


square = lambda v: v * v  # noqa: E731
results = {
    "doc": __doc__,
    "box_doc": Box.__doc__,
    "pairs_doc": pairs.__doc__,
    "no_body": no_body(),
    "pairs": list(pairs(3)),
    "square": square(4),
    "annotations": Box.__init__.__annotations__,
    "box": Box(3).value,
}
try:
    fails(5)
except ValueError as error:
    results["error"] = str(error)
    results["error_line"] = error.__traceback__.tb_next.tb_lineno
'''


def run_program(code, path: Path) -> dict:
    namespace = {"__name__": "__main__", "__file__": str(path)}
    exec(code, namespace)
    return namespace["results"]


def test_the_recording_calls_change_nothing_the_script_can_see(tmp_path, monkeypatch):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    plain = run_program(compile(PROGRAM, str(script), "exec"), script)
    lines = load("_lines")
    recorded = []
    tracer = type("Tracer", (), {"script": str(script), "counts": {16: 0}})()
    tracer.record = recorded.append
    tracer.mark = lambda frame, line: recorded.append(("pass", line))
    code, loop_lines = lines.instrumented_code(str(script))
    lines.install(tracer, loop_lines)
    try:
        instrumented = run_program(code, script)
    finally:
        lines.uninstall()
    assert instrumented == plain
    assert plain["error_line"] == 22 and plain["doc"] == "The module's docstring."
    assert loop_lines == {16}
    # Every statement's line, a pass per loop iteration, the lambda's line, and the
    # caller's line again when a function (or the lambda) returns into it.
    assert recorded.count(("pass", 16)) == 3
    assert 30 in recorded  # the lambda's body ran
    assert recorded[-1] == 45  # the last statement run: results["error_line"] = ...


def test_a_traceback_through_the_script_keeps_its_lines(tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(
        textwrap.dedent(
            """\
            def inner(values):
                return values["missing"]


            def outer():
                total = 1
                return inner({}) + total


            outer()
            """
        )
    )
    code, _ = load("_lines").instrumented_code(str(script))
    with pytest.raises(KeyError) as caught:
        exec(code, {"__name__": "__main__"})
    frames = [(f.name, f.lineno, f.line) for f in traceback.extract_tb(caught.value.__traceback__)]
    assert frames[1:] == [
        ("<module>", 10, "outer()"),
        ("outer", 7, "return inner({}) + total"),
        ("inner", 2, 'return values["missing"]'),
    ]


def test_a_script_that_does_not_parse_is_left_to_the_trace_function(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("for x in :\n    pass\n")
    assert load("_lines").instrumented_code(str(script)) is None


@pytest.fixture(scope="module")
def warm():
    with WarmPython() as interpreter:
        yield interpreter


def failures(warm, script: Path, *extra: str) -> list[dict]:
    options = RuntimeOptions(python=str(warm.shim), device="cpu", max_steps=20, discover=True)
    result = script.parent / f".lines-{script.stem}.jsonl"
    try:
        command = harness_command(script, [], options, ["--result-file", str(result), *extra])
        subprocess.run(
            command, cwd=script.parent, capture_output=True, timeout=TIMEOUT_S, check=False
        )
        events = [json.loads(line) for line in result.read_text().splitlines()]
    finally:
        result.unlink(missing_ok=True)
    keys = ("line", "iteration", "problem", "built_line", "built_iteration", "freed_line")
    keys += ("freed_iteration", "same_step", "frames", "repeats")
    verdict = events[-1]
    return [{key: f.get(key) for key in keys} for f in verdict.get("failures", [])], verdict[
        "status"
    ]


# Every fixture that runs to its end (spawns_child.py waits to be killed).
CASES = [path for path in sorted(SCRIPTS.glob("*.py")) if path.stem != "spawns_child"]
CASES += sorted((SCRIPTS / "discovery").glob("*.py"))
CASES += [
    REALWORLD / f"{name}.py" for name in ("rnn_charrnn_self_hidden", "gan_gdpp_callee_backward")
]


@pytest.mark.parametrize("script", CASES, ids=lambda path: path.stem)
def test_compiled_recording_sees_what_the_trace_function_sees(warm, script):
    traced = failures(warm, script, "--trace-lines")
    compiled = failures(warm, script)
    assert compiled == traced


COMPILED = """\
import importlib

import torch

compiler = {spelling}
torch.manual_seed(0)


@compiler(backend="eager")
def step(w, x):
    return (torch.tanh(x @ w) * 2).sum()


w = torch.randn(3, 3, requires_grad=True)
x = torch.randn(2, 3)
for _ in range(3):
    step(w, x).backward()
# The module's name spelled so that only `compiler` says whether the script names dynamo.
counters = importlib.import_module("torch._dy" + "namo.utils").counters
print("graphs", counters["stats"]["unique_graphs"], "grad", round(float(w.grad.sum()), 5))
"""


def run_both(warm, script: Path) -> tuple[str, str, str]:
    """The script under the harness and alone: both stdouts, and the harness run's stderr."""
    options = RuntimeOptions(python=str(warm.shim), device="cpu", max_steps=20)
    result = script.with_suffix(".jsonl")
    command = harness_command(script, [], options, ["--result-file", str(result)])
    runs = [
        subprocess.run(argv, cwd=script.parent, capture_output=True, text=True, timeout=TIMEOUT_S)
        for argv in (command, [str(warm.shim), str(script)])
    ]
    return runs[0].stdout.strip(), runs[1].stdout.strip(), runs[0].stderr


def test_a_script_given_to_torch_compile_is_traced_the_old_way(warm, tmp_path):
    """torch 2.13's dynamo cannot trace a recording call: it gives up on the function and
    runs it eagerly, with a warning. A script that names torch.compile keeps its graphs."""
    named = tmp_path / "named.py"
    named.write_text(COMPILED.format(spelling="torch.compile"))
    run, plain, errors = run_both(warm, named)
    assert plain.startswith("graphs 1 ") and run == plain
    assert "Dynamo does not know how to trace" not in errors
    hidden = tmp_path / "hidden.py"
    hidden.write_text(COMPILED.format(spelling='getattr(torch, "compile")'))
    run, alone, errors = run_both(warm, hidden)
    assert alone == plain
    # Compiled with the recording calls: no graph, the same gradients, and the warning.
    assert run.startswith("graphs 0 ") and run.split()[2:] == plain.split()[2:]
    assert "Dynamo does not know how to trace" in errors
